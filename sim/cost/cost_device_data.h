// sim/cost/cost_device_data.h: the built-in compute devices as initialiser
// macros, private to sim/cost/cost_devices.c (the device table) and
// sim/cost/cost_profiles.c (the systems, which hold copies), so that the two
// cannot disagree. Sources and the meaning of each number: cost_devices.c.
#ifndef DDPLAB_SIM_COST_DEVICE_DATA_H
#define DDPLAB_SIM_COST_DEVICE_DATA_H

#define DEV_TFLOPS 1e12
#define DEV_GBPS 1e9
#define DEV_GB 1e9
#define DEV_US 1e-6

// attn_efficiency, the fraction of the 16-bit peak a fused attention kernel
// reaches: H100 (and H200, the same SMs) 0.30, PyTorch's
// scaled_dot_product_attention (FlashAttention-2) measured at 287-304
// TFLOP/s forward on an H100 for sequences of 1024 to 16384, head dimension
// 128 (pytorch/benchmark, pull request 2296); A100 0.50, the low end of the
// 50-73% of peak that the FlashAttention-2 paper (Dao 2023, arXiv
// 2307.08691) reports for its forward pass, since backward, 2.5 times the
// forward's FLOPs, runs slower. The other devices have no published figure
// and take their efficiency.
// sm_count and the product tile (sim/cost/cost_gemm.c): the SMs of each
// part as its architecture whitepaper states them (H100 SXM5 132 of the
// GH100's 144, H200 the same die; A100 108 of GA100's 128; L40S 142 and
// RTX 4090 128 of AD102's 144), and the output tile of one thread block of
// the large bf16 products cuBLAS runs there: 256x128 on Ampere and Ada
// (NVIDIA's Matrix Multiplication Background User's Guide: "256x128 thread
// block tiles", one per SM, on A100; cuBLAS's ampere_*_256x128 kernels,
// which Ada also runs), 128x256 on Hopper (cuBLAS's sm90 kernels'
// tilesize128x256x64).
#define DEVICE_H100 \
    {.name = "h100", \
     .description = "NVIDIA H100 SXM5 80 GB", \
     .peak_fp32_flops = 67 * DEV_TFLOPS, \
     .peak_lowp_flops = 989 * DEV_TFLOPS, \
     .mem_bw_Bps = 3350 * DEV_GBPS, \
     .mem_bytes = 80 * DEV_GB, \
     .efficiency = 0.80, \
     .attn_efficiency = 0.30, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 132, .gemm_tile_m = 128, .gemm_tile_n = 256, \
     .source = "NVIDIA H100 datasheet (SXM): 67 TFLOPS fp32, 989 TFLOPS bf16 dense (1979 " \
               "sparse), 3.35 TB/s HBM3, 80 GB; efficiency: MAMF 794.5/989 " \
               "(stas00/ml-engineering)"}

#define DEVICE_H200 \
    {.name = "h200", \
     .description = "NVIDIA H200 SXM 141 GB", \
     .peak_fp32_flops = 67 * DEV_TFLOPS, \
     .peak_lowp_flops = 989 * DEV_TFLOPS, \
     .mem_bw_Bps = 4800 * DEV_GBPS, \
     .mem_bytes = 141 * DEV_GB, \
     .efficiency = 0.80, \
     .attn_efficiency = 0.30, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 132, .gemm_tile_m = 128, .gemm_tile_n = 256, \
     .source = "NVIDIA H200 datasheet (SXM): 67 TFLOPS fp32, 989 TFLOPS bf16 dense (1979 " \
               "sparse), 4.8 TB/s HBM3e, 141 GB; efficiency: as H100 (MAMF table: same)"}

#define DEVICE_A100_40 \
    {.name = "a100-40", \
     .description = "NVIDIA A100 SXM4 40 GB", \
     .peak_fp32_flops = 19.5 * DEV_TFLOPS, \
     .peak_lowp_flops = 312 * DEV_TFLOPS, \
     .mem_bw_Bps = 1555 * DEV_GBPS, \
     .mem_bytes = 40 * DEV_GB, \
     .efficiency = 0.87, \
     .attn_efficiency = 0.50, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 108, .gemm_tile_m = 256, .gemm_tile_n = 128, \
     .source = "NVIDIA A100 datasheet (40GB SXM): 19.5 TFLOPS fp32, 312 TFLOPS bf16 dense " \
               "(624 sparse), 1555 GB/s HBM2, 40 GB; efficiency: MAMF 271.2/312 " \
               "(stas00/ml-engineering)"}

#define DEVICE_A100_80 \
    {.name = "a100-80", \
     .description = "NVIDIA A100 SXM4 80 GB", \
     .peak_fp32_flops = 19.5 * DEV_TFLOPS, \
     .peak_lowp_flops = 312 * DEV_TFLOPS, \
     .mem_bw_Bps = 2039 * DEV_GBPS, \
     .mem_bytes = 80 * DEV_GB, \
     .efficiency = 0.87, \
     .attn_efficiency = 0.50, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 108, .gemm_tile_m = 256, .gemm_tile_n = 128, \
     .source = "NVIDIA A100 datasheet (80GB SXM): 19.5 TFLOPS fp32, 312 TFLOPS bf16 dense " \
               "(624 sparse), 2039 GB/s HBM2e, 80 GB; efficiency: MAMF 271.2/312 " \
               "(stas00/ml-engineering)"}

// No published MAMF figure for the L40S: 0.8 is assumed, the H100's.
#define DEVICE_L40S \
    {.name = "l40s", \
     .description = "NVIDIA L40S 48 GB (PCIe)", \
     .peak_fp32_flops = 91.6 * DEV_TFLOPS, \
     .peak_lowp_flops = 362.05 * DEV_TFLOPS, \
     .mem_bw_Bps = 864 * DEV_GBPS, \
     .mem_bytes = 48 * DEV_GB, \
     .efficiency = 0.80, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 142, .gemm_tile_m = 256, .gemm_tile_n = 128, \
     .source = "NVIDIA L40S datasheet: 91.6 TFLOPS fp32, 362.05 TFLOPS bf16 dense (733 " \
               "sparse), 864 GB/s GDDR6, 48 GB; efficiency 0.8 assumed (no public MAMF)"}

// GeForce cards run fp16/bf16 products with fp32 accumulation at half
// the rate of fp16 accumulation; training accumulates in fp32, so the
// peak is 165.2 TFLOPS, not 330. torch.matmul measurements reach 150-165
// TFLOPS bf16 at 2048-8192 squares (pytorch/pytorch#181718,
// zzc0721/torch-performance-test-data#78), above 0.9 of it thanks to
// boost clocks; 0.9 is taken.
#define DEVICE_RTX4090 \
    {.name = "rtx4090", \
     .description = "NVIDIA GeForce RTX 4090 24 GB", \
     .peak_fp32_flops = 82.6 * DEV_TFLOPS, \
     .peak_lowp_flops = 165.2 * DEV_TFLOPS, \
     .mem_bw_Bps = 1008 * DEV_GBPS, \
     .mem_bytes = 24 * DEV_GB, \
     .efficiency = 0.90, \
     .launch_s = 5 * DEV_US, \
     .sm_count = 128, .gemm_tile_m = 256, .gemm_tile_n = 128, \
     .source = "NVIDIA Ada Lovelace whitepaper (RTX 4090): 82.6 TFLOPS fp32, 165.2 TFLOPS " \
               "bf16 dense with fp32 accumulate, 1008 GB/s GDDR6X, 24 GB; efficiency 0.9 " \
               "from public torch.matmul figures (150-165 TFLOPS)"}

// The host CPUs' share per GPU, where CPU offload steps the optimizer: a
// node's CPUs and DRAM divided by its 8 GPUs. An offloaded Adam step (read
// the parameter, its gradient and both moments, write three back: 28 bytes
// per fp32 parameter) is bound by the DRAM bandwidth. efficiency 0.75: the
// share of the DRAM peak a STREAM-like pass reaches on such sockets.
// launch: 10 us, one CPU op dispatched by the framework.
//   DGX H100: 2 x Intel Xeon Platinum 8480C (56 cores at 2.0 GHz base, 2
//   AVX-512 FMA units; 8 channels of DDR5-4800 each, 38.4 GB/s a channel):
//   14.3 TFLOP/s fp32 and 614 GB/s per node (NVIDIA DGX H100 user guide,
//   Intel ARK).
//   DGX A100: 2 x AMD EPYC 7742 (64 cores at 2.25 GHz base, AVX2: 32 fp32
//   FLOPs a cycle; 8 channels of DDR4-3200 each, 25.6 GB/s a channel): 9.2
//   TFLOP/s and 410 GB/s per node (NVIDIA DGX A100 user guide, AMD).
#define HOST_DGX_H100 \
    {.name = "host-dgx-h100", \
     .description = "DGX H100 host CPUs, one GPU's share", \
     .peak_fp32_flops = 1.79 * DEV_TFLOPS, \
     .peak_lowp_flops = 1.79 * DEV_TFLOPS, \
     .mem_bw_Bps = 76.8 * DEV_GBPS, \
     .mem_bytes = 2000.0 / 8 * DEV_GB, \
     .efficiency = 0.75, \
     .launch_s = 10 * DEV_US, \
     .source = "2 x Xeon Platinum 8480C (112 cores, 16 x DDR5-4800) per 8 GPUs; DGX H100 " \
               "user guide, Intel ARK"}

#define HOST_DGX_A100 \
    {.name = "host-dgx-a100", \
     .description = "DGX A100 host CPUs, one GPU's share", \
     .peak_fp32_flops = 1.15 * DEV_TFLOPS, \
     .peak_lowp_flops = 1.15 * DEV_TFLOPS, \
     .mem_bw_Bps = 51.2 * DEV_GBPS, \
     .mem_bytes = 1000.0 / 8 * DEV_GB, \
     .efficiency = 0.75, \
     .launch_s = 10 * DEV_US, \
     .source = "2 x AMD EPYC 7742 (128 cores, 16 x DDR4-3200) per 8 GPUs; DGX A100 user " \
               "guide, AMD"}

#endif
