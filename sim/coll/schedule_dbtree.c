// sim/coll/schedule_dbtree.c: NCCL's all_reduce "Tree" as a schedule: two binary
// trees, each carrying half of the buffer, pipelined chunk by chunk.
//
// One tree. Positions i = 1..R, in order; the level of i is the number of
// trailing zero bits of i, so the odd positions are the leaves. The root is
// the largest power of two 2^H <= R. A node i of level l >= 1 has the left
// child i - 2^(l-1), always present, and the right child i + 2^(l-1), or
// when that passes R the first node below it on the way left that does not
// (none when i + 1 > R). The left subtree is complete, so a node's height
// is its level, and no node is deeper than H - level: no chain is longer
// than H.
//
// Two trees. Tree 0 puts rank i - 1 at position i; tree 1 shifts by one and
// puts rank i mod R there. A rank that is a leaf of one tree (tree 0: the
// even ranks) is an inner node of the other, so every rank receives and
// sends about as much as every other, which a single tree cannot do.
//
// The pipeline. Each tree's half is cut into K chunks (chunks 0..K-1 of the
// buffer belong to tree 0, K..2K-1 to tree 1, balanced parts of 2K). Chunk
// c of a tree moves
//   up:   a node of level l >= 1 adds in its children's chunk c at step
//         c + l - 1 (a child of level m finished it at c + m - 1 < c + l - 1);
//   down: a node at depth d >= 1 copies its parent's finished chunk c at
//         step c + H + d - 1 (the root finishes it at c + H - 1).
// So a step moves different chunks up and down at once, and the collective
// takes K + 2H - 1 steps against the ring's 2(R - 1). Within one step no
// rank writes a chunk that another reads from it: what a node adds in
// (chunk t - l + 1) and copies (t - H - d + 1) differs from what its
// parent reads (t - level(parent) + 1) and its children copy (t - H - d),
// because level(node) < level(parent) <= H - d + 1.
#include "coll/schedule.h"
#include "coll/schedule_internal.h"

static int ctz(int x) {
    int n = 0;
    while ((x & 1) == 0) {
        x >>= 1;
        n++;
    }
    return n;
}

int sim_dbtree_height(int nranks) {
    int h = 0;
    while (nranks >= 2 << h)
        h++;
    return h;
}

int sim_dbtree_chunks(size_t count) {
    size_t half = (count + 1) / 2;
    size_t k = (half + SIM_DBTREE_CHUNK - 1) / SIM_DBTREE_CHUNK;
    return k < 1 ? 1 : k > SIM_DBTREE_MAX_CHUNKS ? SIM_DBTREE_MAX_CHUNKS : (int)k;
}

// Position i's children (0 where absent).
static void children(int R, int i, int *left, int *right) {
    int l = ctz(i);
    *left = *right = 0;
    if (l == 0)
        return;
    *left = i - (1 << (l - 1));
    int j = i + (1 << (l - 1));
    while (j > R && ctz(j) > 0)
        j -= 1 << (ctz(j) - 1);
    *right = j <= R ? j : 0;
}

static int rank_at(int R, int tree, int i) { return tree == 0 ? i - 1 : i % R; }
static int pos_of(int R, int tree, int rank) {
    return tree == 0 ? rank + 1 : rank == 0 ? R : rank;
}

void sim_dbtree_node(int nranks, int tree, int rank, SimTreeNode *out) {
    int R = nranks, i = pos_of(R, tree, rank);
    int cur = 1 << sim_dbtree_height(R), parent = 0, depth = 0;
    while (cur != i) { // walk down from the root: positions are in order
        int l, r;
        children(R, cur, &l, &r);
        parent = cur;
        cur = i < cur ? l : r;
        depth++;
    }
    int l, r;
    children(R, i, &l, &r);
    out->level = ctz(i);
    out->depth = depth;
    out->parent = parent ? rank_at(R, tree, parent) : -1;
    out->parent_level = parent ? ctz(parent) : -1;
    out->nchild = 0;
    if (l)
        out->child[out->nchild++] = rank_at(R, tree, l);
    if (r)
        out->child[out->nchild++] = rank_at(R, tree, r);
}

void sim_dbtree_nodes(int nranks, int tree, SimTreeNode *out) {
    int R = nranks, H = sim_dbtree_height(R);
    // positions still to visit with their parent's position and depth; a
    // node's two subtrees are at most H deep, so the stack holds ~2(H+1)
    struct {
        int pos, parent, depth;
    } stack[2 * 32 + 2];
    int top = 0;
    stack[top++].pos = 1 << H;
    stack[0].parent = 0, stack[0].depth = 0;
    while (top > 0) {
        int i = stack[--top].pos, parent = stack[top].parent, depth = stack[top].depth;
        int l, r;
        children(R, i, &l, &r);
        SimTreeNode *o = &out[rank_at(R, tree, i)];
        o->level = ctz(i);
        o->depth = depth;
        o->parent = parent ? rank_at(R, tree, parent) : -1;
        o->parent_level = parent ? ctz(parent) : -1;
        o->nchild = 0;
        int kids[2] = {l, r};
        for (int k = 0; k < 2; k++)
            if (kids[k]) {
                o->child[o->nchild++] = rank_at(R, tree, kids[k]);
                stack[top].pos = kids[k], stack[top].parent = i, stack[top].depth = depth + 1;
                top++;
            }
    }
}

// Chunk c of `tree` from src to dst, the same offsets on both sides.
static void put_tree_chunk(const SimSched *s, int tree, int c, int src, int dst, SimXferOp op,
                           SimXfer *out, int max, int *n) {
    int K = s->nchunks / 2, g = tree * K + c;
    size_t off = sim_part_begin(s->count, s->nchunks, g);
    sim_sched_put(out, max, n, src, dst, g, off, off, sim_part_size(s->count, s->nchunks, g), op);
}

void sim_sched_dbtree(const SimSched *s, int q, int t, int in, SimXfer *out, int max, int *n) {
    int R = s->nranks, K = s->nchunks / 2, H = sim_dbtree_height(R);
    for (int tree = 0; tree < 2; tree++) {
        SimTreeNode v;
        sim_dbtree_node(R, tree, q, &v);
        int up = t - v.level + 1;          // the chunk q adds in from its children
        int down = t - H - v.depth + 1;    // the chunk q copies from its parent
        if (in) {
            for (int k = 0; k < v.nchild && v.level > 0 && up >= 0 && up < K; k++)
                put_tree_chunk(s, tree, up, v.child[k], q, SIM_XFER_REDUCE, out, max, n);
            if (v.depth > 0 && down >= 0 && down < K)
                put_tree_chunk(s, tree, down, v.parent, q, SIM_XFER_COPY, out, max, n);
            continue;
        }
        int to_parent = t - v.parent_level + 1, to_children = t - H - v.depth;
        if (v.parent >= 0 && to_parent >= 0 && to_parent < K)
            put_tree_chunk(s, tree, to_parent, q, v.parent, SIM_XFER_REDUCE, out, max, n);
        for (int k = 0; k < v.nchild && to_children >= 0 && to_children < K; k++)
            put_tree_chunk(s, tree, to_children, q, v.child[k], SIM_XFER_COPY, out, max, n);
    }
}
