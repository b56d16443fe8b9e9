// sim/cost/cost_profiles.c: the built-in hardware profiles, as data.
//
// Convention: bw_Bps is the EFFECTIVE bandwidth a collective achieves per
// direction per rank (what nccl-tests reports as busbw for a ring), not the
// line rate; each source names the line rate it derives from and why the
// two differ. GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s.
//
// alpha_s is the latency of one message (one step of a schedule). It is an
// order-of-magnitude figure, stated per link below. For scale: NCCL's own
// tuning model (src/graph/tuning.cc, table hwLat) charges 0.4 to 5.7 us per
// ring hop depending on the protocol (LL, LL128, Simple), on NVLink, PCIe
// and the network alike, plus a few us per collective; InfiniBand verbs alone
// take 1-2 us; kernel TCP sockets on a LAN take tens of us.
#include "cost/cost.h"

#include <string.h>

#include "cost/cost_device_data.h" // defines: DEVICE_H100, DEVICE_A100_80, HOST_DGX_*

#define GBPS 1e9 // bytes per second in one GB/s
#define US 1e-6  // seconds in one microsecond

// Each link is written once, as a macro, so that the link table and the
// system table (which holds copies) cannot disagree.

// NVLink3 on A100 SXM: 12 links x 25 GB/s per direction = 300 GB/s line.
// nccl-tests all_reduce on 8x A100 reaches ~230 GB/s busbw on DGX A100
// (~200 GB/s on other 8x A100 boards, nccl-tests issue #149).
// alpha 1 us: between NCCL's LL (0.4 us) and LL128 (2.5 us) per-hop figures.
#define LINK_NVLINK_A100 \
    {"nvlink-a100", 1.0 * US, 230 * GBPS, \
    "NVLink3 (A100): 12 x 25 GB/s = 300 GB/s/dir line; ~230 GB/s ring busbw " \
    "in nccl-tests on DGX A100 (~200 on other boards, nccl-tests #149)"}

// NVLink4 on H100 SXM: 18 links, 450 GB/s per direction line rate. NCCL
// gets ~370 GB/s effective after protocol overhead (~20%), seen as ring
// busbw (nccl-tests issue #212, maintainer's answer). alpha as for A100.
#define LINK_NVLINK_H100 \
    {"nvlink-h100", 1.0 * US, 370 * GBPS, \
    "NVLink4 (H100): 450 GB/s/dir line; ~370 GB/s effective ring busbw " \
    "(nccl-tests #212: ~20% protocol overhead)"}

// PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 = 31.5 GB/s per direction;
// TLP/DLLP overhead leaves ~25 GB/s for large DMA transfers.
// alpha 2 us: a PCIe hop (often through the CPU root complex) is slower than
// NVLink; NCCL's model charges 1.0 us (LL) to 5.7 us (Simple).
#define LINK_PCIE4 \
    {"pcie4-x16", 2.0 * US, 25 * GBPS, \
    "PCIe 4.0 x16: 31.5 GB/s/dir line (16 GT/s x16, 128b/130b); ~25 GB/s " \
    "effective after packet overhead (~80%)"}

// PCIe 5.0 x16: 32 GT/s x 16 x 128/130 = 63 GB/s per direction; the same
// ~80% packet efficiency as Gen4 gives ~50 GB/s. alpha as for Gen4.
#define LINK_PCIE5 \
    {"pcie5-x16", 2.0 * US, 50 * GBPS, \
    "PCIe 5.0 x16: 63 GB/s/dir line (32 GT/s x16, 128b/130b); ~50 GB/s " \
    "effective after packet overhead (~80%)"}

// InfiniBand HDR: 200 Gb/s data rate = 25 GB/s per direction per NIC;
// RDMA with large messages reaches ~96% of it.
// alpha 5 us: 1-2 us of RDMA latency plus NCCL's proxy thread and the PCIe
// crossings between GPU, NIC and host.
#define LINK_IB_HDR \
    {"ib-hdr200", 5.0 * US, 24 * GBPS, \
    "InfiniBand HDR 200 Gb/s = 25 GB/s/dir line per NIC; ~24 GB/s effective " \
    "(~96% with large RDMA messages)"}

// InfiniBand NDR: 400 Gb/s = 50 GB/s per direction per NIC, same ~96% and
// the same alpha as HDR.
#define LINK_IB_NDR \
    {"ib-ndr400", 5.0 * US, 48 * GBPS, \
    "InfiniBand NDR 400 Gb/s = 50 GB/s/dir line per NIC; ~48 GB/s effective " \
    "(~96% with large RDMA messages)"}

// Ethernet 25 Gb/s = 3.125 GB/s; TCP over a 1500-byte MTU carries 1448
// payload bytes per 1538 bytes on the wire (94%): ~2.9 GB/s.
// alpha 30 us: a message through kernel TCP sockets on a LAN (system calls,
// interrupts, a switch hop) costs tens of microseconds.
#define LINK_ETH25 \
    {"eth25", 30.0 * US, 2.9 * GBPS, \
    "Ethernet 25 Gb/s = 3.125 GB/s/dir line; ~2.9 GB/s TCP goodput (1448 of " \
    "1538 wire bytes per 1500-MTU frame); socket latency ~30 us"}

// Ethernet 100 Gb/s = 12.5 GB/s; the same 94% TCP framing efficiency
// (reached with several streams, as NCCL's socket transport opens).
// alpha 20 us: the same socket path on faster NICs with interrupt moderation
// tuned for throughput.
#define LINK_ETH100 \
    {"eth100", 20.0 * US, 11.7 * GBPS, \
    "Ethernet 100 Gb/s = 12.5 GB/s/dir line; ~11.7 GB/s TCP goodput over " \
    "several streams (94% framing); socket latency ~20 us"}

static const SimLinkProfile links[] = {
    LINK_NVLINK_A100, LINK_NVLINK_H100, LINK_PCIE4, LINK_PCIE5,
    LINK_IB_HDR,      LINK_IB_NDR,      LINK_ETH25, LINK_ETH100,
};

enum { NLINKS = (int)(sizeof(links) / sizeof(links[0])) };

// A system whose GPU model is left open: the cost model then prices compute
// on the default device, or on the one --gpu names.
#define DEVICE_UNSTATED {.name = ""}

// The first entry is the default system (sim_world_config_default). The DGX
// systems state their GPUs (DGX A100 640 GB: 8 x A100 SXM4 80 GB) and their
// host CPUs (cost_device_data.h); the others leave the GPU to --gpu and the
// host to the default (a DGX H100's). The DGX systems' last field is their
// compute NICs, the rails a ring's node crossing spreads over (cost.h,
// "Rails"): eight ConnectX-7 NDR 400 Gb/s on a DGX H100 (NVIDIA DGX H100
// user guide, "network ports": eight single-port OSFP cages for the compute
// fabric), eight ConnectX-6 HDR 200 Gb/s on a DGX A100 (DGX A100 user
// guide); llm-foundry's A100 cluster states the same 1600 Gb/s per node.
// The PCIe and Ethernet systems state none (one NIC carries a crossing).
static const SimSysProfile systems[] = {
    {"dgx-h100", "DGX H100: 8 GPUs per node on NVLink4, one NDR 400 Gb/s NIC per GPU",
     LINK_NVLINK_H100, LINK_IB_NDR, 8, DEVICE_H100, HOST_DGX_H100, 8},
    {"dgx-a100", "DGX A100: 8 GPUs per node on NVLink3, one HDR 200 Gb/s NIC per GPU",
     LINK_NVLINK_A100, LINK_IB_HDR, 8, DEVICE_A100_80, HOST_DGX_A100, 8},
    {"pcie-ib200", "8 PCIe 4.0 GPUs per node (no NVLink), InfiniBand HDR 200 Gb/s between nodes",
     LINK_PCIE4, LINK_IB_HDR, 8, DEVICE_UNSTATED, DEVICE_UNSTATED, 0},
    {"pcie-eth25", "8 PCIe 4.0 GPUs per node (no NVLink), 25 Gb/s Ethernet between nodes",
     LINK_PCIE4, LINK_ETH25, 8, DEVICE_UNSTATED, DEVICE_UNSTATED, 0},
    {"pcie5-eth100", "8 PCIe 5.0 GPUs per node (no NVLink), 100 Gb/s Ethernet between nodes",
     LINK_PCIE5, LINK_ETH100, 8, DEVICE_UNSTATED, DEVICE_UNSTATED, 0},
    {"eth25", "one GPU per machine, machines on 25 Gb/s Ethernet (PCIe 4.0 if two share one)",
     LINK_PCIE4, LINK_ETH25, 1, DEVICE_UNSTATED, DEVICE_UNSTATED, 0},
};

enum { NSYSTEMS = (int)(sizeof(systems) / sizeof(systems[0])) };

int sim_link_count(void) { return NLINKS; }

const SimLinkProfile *sim_link_at(int i) {
    return i >= 0 && i < NLINKS ? &links[i] : NULL;
}

const SimLinkProfile *sim_link_find(const char *name) {
    for (int i = 0; name != NULL && i < NLINKS; i++)
        if (strcmp(links[i].name, name) == 0)
            return &links[i];
    return NULL;
}

int sim_sys_count(void) { return NSYSTEMS; }

const SimSysProfile *sim_sys_at(int i) {
    return i >= 0 && i < NSYSTEMS ? &systems[i] : NULL;
}

const SimSysProfile *sim_sys_find(const char *name) {
    for (int i = 0; name != NULL && i < NSYSTEMS; i++)
        if (strcmp(systems[i].name, name) == 0)
            return &systems[i];
    return NULL;
}
