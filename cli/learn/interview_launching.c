// cli/learn/interview_launching.c: conceptual questions on starting a job:
// what torchrun sets (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT), what
// init_process_group reads, nccl against gloo, and two SLURM scripts that go
// wrong. ddplab's cpu backend launches no processes, so the commands show
// the nearest things: ranks placed on nodes, and the variables that
// --rendezvous reads under --backend cuda (run --help).
#include "learn/interview.h"

static const IvChoiceItem items[] = {
    {"`torchrun --nnodes 2 --nproc_per_node 4 train.py` runs on two machines. The process "
     "with RANK=5: what are its LOCAL_RANK and WORLD_SIZE?",
     "LOCAL_RANK 1 and WORLD_SIZE 8",
     {"LOCAL_RANK 5 and WORLD_SIZE 8, since both count globally",
      "LOCAL_RANK 1 and WORLD_SIZE 4, the processes of its node",
      "LOCAL_RANK 5, WORLD_SIZE 4",
      "LOCAL_RANK 0, WORLD_SIZE 2"},
     "WORLD_SIZE counts processes over all nodes: 2 x 4 = 8. torchrun gives each node a "
     "consecutive block of ranks, so rank 5 is the second process of the second node: "
     "LOCAL_RANK = 5 mod 4 = 1, the index for torch.cuda.set_device. ddplab places ranks "
     "the same way with --nodes: the bench runs 8 ranks on 2 nodes, ranks 4-7 on the second.",
     "ddplab bench -a ring -n 8 --nodes 2 -b 16M -e 16M -w 0 -i 1 --inplace 0", 0, NULL},
    {"A job on 2 nodes of 8 GPUs calls torch.cuda.set_device(int(os.environ['RANK'])). What "
     "happens on the second node?",
     "Its processes ask for GPUs 8 to 15, which that machine lacks, and fail with an invalid "
     "device ordinal",
     {"Nothing: CUDA wraps the index around the visible GPUs, so rank 8 lands on GPU 0 and the "
      "job runs as it would on one node",
      "All 8 processes of that node share GPU 0, which soon runs out of memory",
      "init_process_group renumbers the second node's ranks from 0 before the script reaches "
      "set_device, so the call works there",
      "The job runs, but NCCL routes the second node's traffic through the first node's GPUs"},
     "RANK is global (0 to 15 here) while each machine has devices 0 to 7. The device must "
     "come from LOCAL_RANK, which torchrun sets per node. The bug stays hidden on one node, "
     "where RANK equals LOCAL_RANK, and appears as soon as a second node joins. The run "
     "spreads 16 ranks over 2 nodes, 8 on each.",
     "ddplab run --strategy ddp -n 16 --nodes 2 --data blobs --steps 2", 0, NULL},
    {"Under torchrun, a script calls dist.init_process_group('nccl') with no other argument. "
     "Where does it learn its rank, the world size and whom to contact?",
     "From the environment: RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT (the env:// "
     "default)",
     {"From LOCAL_RANK alone, which it multiplies by the number of visible GPUs to work out "
      "the rank and the world size",
      "Nowhere: rank and world_size must always be passed to it as arguments",
      "From a hostfile that torchrun writes for NCCL, listing every node with its GPUs and "
      "addresses",
      "From NCCL, which numbers all of the job's GPUs in the order of their PCI bus addresses, "
      "node by node"},
     "With no init_method, init_process_group uses env://: it reads RANK and WORLD_SIZE and "
     "connects to the TCP store at MASTER_ADDR:MASTER_PORT, which torchrun sets for it. "
     "LOCAL_RANK is for the script, to choose its GPU. ddplab's cpu backend "
     "runs its ranks as threads and needs no rendezvous; the --rendezvous entry of the help "
     "lists the variables it reads from torchrun, mpirun and srun under --backend cuda.",
     "ddplab run --help", 0, NULL},
    {"Which process-group backend suits which job?",
     "nccl for CUDA tensors on GPUs; gloo for CPU tensors, and as a much slower fallback "
     "where NCCL is missing",
     {"gloo for the GPUs inside one node and nccl between the nodes, since NCCL needs an "
      "InfiniBand or Ethernet card to move data",
      "Either one: both run a GPU all-reduce at the same speed, and only the logs differ",
      "nccl for CPU tensors and gloo for CUDA tensors, since gloo was written for GPUs",
      "mpi for every job of more than one GPU, since nccl and gloo only work between processes "
      "that share one node and its memory"},
     "NCCL runs collectives as CUDA kernels over NVLink, PCIe and InfiniBand, on CUDA tensors "
     "only: it is the backend for GPU training, inside a node and across nodes. gloo runs on "
     "the CPU over TCP; it is the choice for CPU-only jobs and tests and supports only part "
     "of the collectives on CUDA tensors, far more slowly. ddplab's cpu backend plays gloo's "
     "part for its threads (collectives through shared memory); the bench measures it and "
     "prices the same all-reduce on NVLink beside it.",
     "ddplab bench -a ring -n 8 -b 16M -e 16M -w 0 -i 1 --inplace 0", 0, NULL},
    {"A SLURM batch script runs `export RANK=$SLURM_PROCID` and then `srun python train.py` "
     "on 2 nodes with 8 tasks each. What goes wrong?",
     "The variable is expanded once, in the batch script, where it is 0: all 16 tasks get "
     "RANK=0 and init fails or hangs",
     {"Nothing: srun evaluates the exported variables again in each task it starts, so the "
      "sixteen ranks come out as 0 to 15 in order",
      "Each node numbers its tasks from 0, so the two nodes' ranks collide pairwise",
      "RANK is right, but WORLD_SIZE is set to the number of nodes, 2",
      "The tasks get ranks 0 to 15 but in a random order, so rank 0 may not be on the node "
      "named by MASTER_ADDR and the store is missing"},
     "The batch script runs once, on the first node, as task 0: $SLURM_PROCID there is 0 and "
     "the export hands RANK=0 to all 16 tasks. Each one then starts the store's server on "
     "MASTER_PORT: on each node the first binds it and the other 7 exit at once (address "
     "already in use); the 2 left wait at the store barrier for 16 and time out (30 minutes "
     "in 1.13). Read SLURM_PROCID and SLURM_LOCALID inside each task (in the program, or in "
     "`srun bash -c`), or run one torchrun per node. The run plays this launch and prints "
     "both errors and the diagnosis.",
     "ddplab run --strategy ddp -n 16 --nodes 2 --fault same-rank", 3,
     "--fault same-rank: init_process_group fails on every process (exit 3)"},
    {"A SLURM job asks for --ntasks-per-node=8 on each 8-GPU node and runs `srun torchrun "
     "--nproc_per_node=8 train.py`. What is wrong?",
     "srun starts 8 torchrun agents per node and each spawns 8 workers: 64 processes on 8 "
     "GPUs",
     {"Nothing: torchrun sees the SLURM allocation and starts only the missing processes",
      "torchrun refuses to run under srun, since SLURM already sets the ranks",
      "Only the first node trains; the others wait for a MASTER_ADDR that is never set, since "
      "srun does not export it",
      "Each process gets 8 GPUs, one from every task of the node, and uses them all"},
     "srun starts --ntasks-per-node copies of its command on each node, and each torchrun "
     "starts --nproc_per_node workers. With torchrun, ask SLURM for one task per node "
     "(--ntasks-per-node=1) and let torchrun start the 8 workers, each with its LOCAL_RANK; "
     "or drop torchrun and let srun's 8 tasks read SLURM_PROCID and SLURM_LOCALID. ddplab's "
     "placement: the run puts 16 ranks on 2 nodes, one per GPU.",
     "ddplab run --strategy ddp -n 16 --nodes 2 --data blobs --steps 2", 0, NULL},
    {"Once init_process_group has returned, what part does MASTER_ADDR:MASTER_PORT play in "
     "training?",
     "Its store serves setup, such as building groups; the gradients never pass through it: "
     "all-reduces run rank to rank",
     {"Rank 0 at that address collects every rank's gradients, averages them on its GPU and "
      "sends the result back to the others each step",
      "Every collective opens a fresh TCP connection to it to find its peers",
      "It relays all the traffic between the nodes through one TCP connection, while NCCL "
      "itself handles only the GPUs inside each node",
      "It is rank 0's GPU, which holds the master copy of the weights that the others read"},
     "The address and port name a TCP key-value store that the processes use to find each "
     "other and to pass NCCL's unique id when communicators are built. From then on NCCL "
     "moves the data over its rings and trees between the ranks' GPUs directly; no rank is a "
     "hub. In the bench's ring all-reduce every rank sends and receives the same number of "
     "bytes.",
     "ddplab bench -a ring -n 8 --nodes 2 -b 16M -e 16M -w 0 -i 1 --inplace 0", 0, NULL},
};

const IvChoiceItem *iv_launching_items(int *n) {
    *n = (int)(sizeof items / sizeof items[0]);
    return items;
}
