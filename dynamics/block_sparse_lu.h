#pragma once
// Block-sparse Gaussian elimination with 3×3 blocks (paper 5, §III.1: storing and eliminating
// the sparse system in 3×3 blocks). Rows are eliminated in a caller-given order; the pivot
// column of each row is either given (diagonal pivots, as ordering B uses) or chosen among the
// row's remaining blocks as the best-conditioned invertible one (orderings A and C, whose row
// orders put equations first that have no invertible diagonal block). Fill-in is created as
// elimination needs it, so the cost of an ordering is exactly what the paper compares.
// The factorisation is kept so further right-hand sides (post-stabilisation) reuse it.
//
// Symbolic reuse (paper 5's exact path, with its structure cached per topology): an
// elimination records what it did as a program over value slots (which block is
// the pivot, which rows it updates, which blocks each update writes or fills in). A later
// system with the same block pattern, row order and pivot columns replays that program on its
// values: the same operations in the same order, so the same bits, without the merges, searches
// and column lists. An island refactors several times a step (impacts, active-set passes, the
// position correction) and keeps its pattern from step to step while its contacts do.
// Recording makes an elimination 7–21% slower (solver bench, first solves of chains and
// trees); recording only a pattern's second elimination cost more than it saved
// (pile_boxes_1k: 2% more instructions).
#include <algorithm>
#include <vector>

#include "collision/base/math.h"
#include "dynamics/pooled_lists.h"

namespace impetus {

class BlockSparseLu {
 public:
  struct Block {
    int col = 0;
    int slot = -1;  // its value's slot in the recorded elimination program
    Mat3 a;  // every block is written whole where it is made
  };

  /// Square system of n block rows/columns, all zero. Storage is kept between systems: rows
  /// beyond n stay allocated for the next larger one, so refactoring islands of varying size
  /// every step allocates only when a row needs more blocks than it ever held.
  void reset(int n);
  int size() const { return n_; }
  /// A[row][col] += a. Assembly mostly goes left to right along a row into room the row
  /// already has (Rows::reset keeps it): that append is inlined into the assembly loops, which
  /// call it for every block of every system (newton_cradle: 49 a system, 3.5 systems a step).
  void add(int row, int col, const Mat3& a) {
    if (!rows_.try_append(row, col, a)) add_out_of_order(row, col, a);
  }
  /// Calls fn(row, col, block) for every stored block (before factorisation: the matrix).
  template <class Fn>
  void for_each_block(Fn&& fn) const {
    for (int r = 0; r < size(); ++r)
      for (const Block* b = rows_.begin(r); b != rows_.end(r); ++b) fn(r, b->col, b->a);
  }

  /// Eliminates rows in `row_order`. With `pivot_cols` empty the pivot of row r is column r
  /// (diagonal); otherwise pivot_cols[k] is the pivot column for row_order[k]; a value of -1
  /// lets the row choose its best-conditioned remaining block. Returns false when a pivot block
  /// is singular (the system is then left unusable).
  /// `max_block_ops` > 0 aborts (returns false) once elimination has spent that many block
  /// operations: the caller then switches to an iterative method.
  bool factorize(const std::vector<int>& row_order, const std::vector<int>& pivot_cols = {},
                 long long max_block_ops = 0);
  /// Refilling a recorded pattern. A caller that assembles the same pattern step after step
  /// (an island of unchanged structure) may write the blocks' values straight into the recorded
  /// program's slots and refactorize(), instead of add() and factorize(): no appends or inserts
  /// into the rows, no comparison of the pattern, the same replay (the same bits, when each slot
  /// gets the same sums in the same order). The rows then keep the last assembled system.
  /// True when the recorded program is for n rows eliminated in row_order with diagonal pivots.
  bool records(int n, const std::vector<int>& row_order) const {
    return program_.valid && program_.n == n && n_ == n && program_.pivot_cols.empty() &&
           program_.row_order == row_order;
  }
  /// The value slot of assembled block (row, col) in the recorded program; −1 if it has none.
  int pattern_slot(int row, int col) const;
  /// The recorded program's value slots (valid while records()); every assembled block's slot
  /// must be written before refactorize().
  Mat3* pattern_values() {
    if (static_cast<int>(values_.size()) < program_.slots) values_.resize(program_.slots);
    return values_.data();
  }
  /// Replays the recorded program on the slots' values; as factorize() (false: a singular pivot
  /// or max_block_ops spent).
  bool refactorize(long long max_block_ops = 0);
  /// Solves A x = b with the factorisation; b and x are per block (size() entries).
  void solve(const std::vector<Vec3>& b, std::vector<Vec3>& x) const;
  /// The same solve, x written over b: only for a factorisation with diagonal pivots
  /// (factorize() without pivot columns).
  void solve_in_place(std::vector<Vec3>& bx) const;
  /// Block operations done by the last factorisation (3×3 multiply-adds), a cost measure.
  long long factor_block_ops() const { return block_ops_; }
  long long fill_blocks() const { return fill_blocks_; }
  /// True when the last factorize() replayed the recorded program (exposed for tests).
  bool last_factorization_replayed() const { return replayed_; }
  /// The next factorize() eliminates afresh, as the first of a pattern does (benchmarks).
  void forget_program() { program_.valid = false; }

 private:
  // The blocks callers add are Eigen temporaries they have just written, often in 8-byte pieces
  // (products, transposes, scalings). Copied as a whole, they were reloaded in 16-byte pieces
  // that straddle those stores: store-to-load forwarding failed on every block (perf: a third
  // of add()'s time on ragdolls_20, add() 5% of the step). Read one double at a time instead:
  // an 8-byte load forwards from any store that contains it. The volatile reads keep the
  // compiler from merging them again.
  static double entry(const Mat3& a, int i) { return static_cast<const volatile double*>(a.data())[i]; }
  static void copy_entries(const Mat3& from, Mat3& to) {
    for (int i = 0; i < 9; ++i) to.data()[i] = entry(from, i);
  }
  struct SolveBlock {
    int col = 0;
    Mat3 a;
  };
  struct Step {
    int row = 0;
    int col = 0;
    int upper_begin = 0, upper_end = 0;  // the row's other blocks at elimination: upper_[begin, end)
    Mat3 pivot_inverse = Mat3::Identity();
  };
  struct Update {
    int target_row = 0;
    int pivot_row = 0;
    Mat3 multiplier = Mat3::Zero();  // row_target -= multiplier · row_pivot
  };

  // The rows' blocks, sorted by column, in one pool. A vector per row kept its capacity, but a
  // solver's rows meet other islands' patterns (islands change solvers: a new one, a merge,
  // dynamics/solver_assignment.h) and grew one at a time: when solvers were handed out by place
  // in the island list, the 10,000-box pile made 10,000 to 35,000 heap allocations a step, 85%
  // of them here, and spent a tenth of its time in malloc. A pool regrows in a few doublings,
  // and keeps its capacity between systems.
  class Rows {
   public:
    /// n empty rows. A system of the same size keeps every row's room where it is: an island
    /// refactors its system several times a step with the same pattern, and laying the rows out
    /// afresh sent each row's first block through reserve() (newton_cradle: 19 rows, 49 blocks a
    /// system; add() took 114 instructions a block). Rooms only grow, so the pool stays within
    /// twice the largest rooms seen. Another size lays the rows out afresh in the emptied pool
    /// (its capacity kept).
    void reset(int n) {
      if (n == static_cast<int>(span_.size())) {
        for (Span& s : span_) s.size = 0;
        return;
      }
      pool_.clear();
      span_.assign(n, Span{});
    }
    Block* begin(int r) { return pool_.data() + span_[r].begin; }
    Block* end(int r) { return begin(r) + span_[r].size; }
    const Block* begin(int r) const { return pool_.data() + span_[r].begin; }
    const Block* end(int r) const { return begin(r) + span_[r].size; }
    int size(int r) const { return span_[r].size; }
    /// Appends block (col, a) to row r when the row has room and its last column is below col;
    /// else returns false and changes nothing.
    bool try_append(int r, int col, const Mat3& a) {
      Span& s = span_[r];
      if (s.size == s.capacity) return false;
      Block* first = pool_.data() + s.begin;
      if (s.size > 0 && first[s.size - 1].col >= col) return false;
      Block& b = first[s.size++];
      b.col = col;
      b.slot = -1;
      copy_entries(a, b.a);
      return true;
    }
    /// A new block at position `at` of row r (blocks from `at` on move up one). Any pointer into
    /// the rows may be invalidated.
    Block& insert(int r, int at) {
      reserve(r, span_[r].size + 1);
      Block* first = begin(r);
      std::copy_backward(first + at, first + span_[r].size, first + span_[r].size + 1);
      ++span_[r].size;
      return first[at];
    }
    /// Row r becomes [from, to) (which must not lie in the pool). Any pointer into the rows may
    /// be invalidated.
    void assign(int r, const Block* from, const Block* to) {
      const int n = static_cast<int>(to - from);
      reserve(r, n);
      std::copy(from, to, begin(r));
      span_[r].size = n;
    }

   private:
    struct Span {
      int begin = 0, size = 0, capacity = 0;
    };
    // A row that outgrows its room moves to the end of the pool with twice the room; the room it
    // leaves stays unused until reset().
    void reserve(int r, int needed) {
      Span& s = span_[r];
      if (needed <= s.capacity) return;
      const int capacity = std::max({needed, 2 * s.capacity, 4});
      const int moved_to = static_cast<int>(pool_.size());
      pool_.resize(pool_.size() + capacity);
      std::copy_n(pool_.begin() + s.begin, s.size, pool_.begin() + moved_to);
      s.begin = moved_to;
      s.capacity = capacity;
    }
    std::vector<Block> pool_;
    std::vector<Span> span_;
  };

  int n_ = 0;  // block rows in use
  Rows rows_;
  PooledLists col_rows_;  // rows holding a block in each column (made by the elimination)
  // Factorisation and solve scratch (kept: no allocation in steady state). solve() is const
  // but uses y_: one system is never solved from two threads at once.
  std::vector<char> row_done_, col_done_;
  std::vector<Block> merged_;
  mutable std::vector<Vec3> y_;
  std::vector<Step> steps_;
  // The eliminated rows' blocks other than their pivots, step after step: the back
  // substitution streams them instead of walking each row's own vector and skipping its pivot
  // (an articulated island solves its factorisation once per sweep, hundreds of times a step).
  std::vector<SolveBlock> upper_;
  std::vector<Update> updates_;
  long long block_ops_ = 0;
  long long fill_blocks_ = 0;
  bool replayed_ = false;
  /// Forward elimination on y, then back substitution into out (which may be y when every
  /// pivot is its row's diagonal block).
  void substitute(Vec3* y, Vec3* out) const;
  /// add() for a block that is not a plain append: merged into an existing block, inserted
  /// before the row's last, or the row out of room.
  void add_out_of_order(int row, int col, const Mat3& a);

  /// Elimination with fill-in created as it goes; records the program as it runs.
  bool eliminate_and_record(const std::vector<int>& row_order, const std::vector<int>& pivot_cols,
                            long long max_block_ops);
  enum class Replay { Done, Failed, PivotChanged };
  /// True when the program was recorded for this pattern and order; copies the blocks' values
  /// into their slots on the way.
  bool program_matches(const std::vector<int>& row_order, const std::vector<int>& pivot_cols);
  Replay replay(const std::vector<int>& pivot_cols, long long max_block_ops);

  // The recorded elimination program (valid after a complete elimination). Slots 0 … nnz − 1
  // are the assembled blocks in row-major order, the rest are fill-in.
  struct SlotRef {
    int col = 0;
    int slot = 0;
  };
  struct ProgramStep {
    int row = 0, col = 0, pivot_slot = 0;
    int candidates_begin = 0, candidates_end = 0;  // the row's open blocks, for chosen pivots
    int updates_begin = 0, updates_end = 0;
    int upper_begin = 0, upper_end = 0;
    long long ops_after = 0;  // block operations done once this step is complete
  };
  struct ProgramUpdate {
    int target_row = 0;
    int source_slot = 0;  // the target's block in the pivot column
    int ops_begin = 0, ops_end = 0;
  };
  struct ProgramOp {
    int target = 0;  // ≥ 0: slot −= m·source; < 0: slot ~target = −m·source (fill-in)
    int source = 0;
  };
  struct Program {
    bool valid = false;
    int n = 0;
    int slots = 0;
    long long fill_blocks = 0;
    std::vector<int> row_order, pivot_cols;
    std::vector<int> row_start, cols;  // the assembled pattern (CSR)
    std::vector<ProgramStep> steps;
    std::vector<ProgramUpdate> updates;
    std::vector<ProgramOp> ops;
    std::vector<SlotRef> candidates, upper;
  };
  Program program_;
  std::vector<Mat3> values_;  // slot values during a replay
};

}  // namespace impetus
