#include "dynamics/block_sparse_lu.h"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>

namespace impetus {

namespace {

// Lower bound on the smallest singular value of a 3×3 block: σ₁σ₂σ₃ = |det| and σ₁σ₂ ≤ ‖A‖²_F,
// so σ₃ ≥ |det| / ‖A‖²_F. Pivots with a large σ₃ keep the multipliers (and growth) small.
double block_quality(const Mat3& a) {
  double norm2 = a.squaredNorm();
  if (norm2 == 0) return 0;
  return std::abs(a.determinant()) / norm2;
}

// Relative to the block's own size, below this a pivot counts as singular.
bool is_singular(const Mat3& a) { return block_quality(a) <= 1e-13 * a.norm(); }

// The best-conditioned invertible block offered (PivotChoice::col −1: none). The elimination
// and its replay choose through this one rule, in the row's column order.
struct PivotChoice {
  int col = -1;
  double best = 0;
  void consider(int c, const Mat3& a) {
    if (is_singular(a)) return;
    const double q = block_quality(a);
    if (q > best) {
      best = q;
      col = c;
    }
  }
};

// The two block operations of an elimination, shared by eliminate_and_record and replay so
// that a replay is the same arithmetic, expression for expression (the same bits).
// Fill-in: out = −m·pivot_block.
void fill_in(Mat3& out, const Mat3& m, const Mat3& pivot_block) { out.noalias() = -(m * pivot_block); }
// out = target − m·pivot_block (out may be target), column by column, as the product reads
// and writes a block: written whole, a copy of target was reloaded by columns across
// differently placed stores (failed store-to-load forwarding).
void eliminate(Mat3& out, const Mat3& target, const Mat3& m, const Mat3& pivot_block) {
  for (int j = 0; j < 3; ++j) out.col(j).noalias() = target.col(j) - m * pivot_block.col(j);
}

// The block in column col of a row [begin, end) sorted by column, or null.
const BlockSparseLu::Block* find_block(const BlockSparseLu::Block* begin,
                                       const BlockSparseLu::Block* end, int col) {
  const BlockSparseLu::Block* it = std::lower_bound(
      begin, end, col, [](const BlockSparseLu::Block& b, int c) { return b.col < c; });
  return (it != end && it->col == col) ? it : nullptr;
}

}  // namespace

void BlockSparseLu::reset(int n) {
  // The rows' pool keeps its capacity between systems (the solver refactors every step): fresh
  // storage each time cost more than the elimination itself on a 10,000-link chain (fresh pages
  // from the kernel), and a row per vector made an allocation per growing row (Rows).
  rows_.reset(n);
  n_ = n;
  steps_.clear();
  updates_.clear();
  upper_.clear();
  block_ops_ = 0;
  fill_blocks_ = 0;
}

void BlockSparseLu::add_out_of_order(int row, int col, const Mat3& a) {
  const int size = rows_.size(row);
  int at = size;
  if (size > 0 && (rows_.end(row) - 1)->col >= col) {
    Block* it = std::lower_bound(rows_.begin(row), rows_.end(row), col,
                                 [](const Block& b, int c) { return b.col < c; });
    if (it != rows_.end(row) && it->col == col) {
      for (int i = 0; i < 9; ++i) it->a.data()[i] += entry(a, i);
      return;
    }
    at = static_cast<int>(it - rows_.begin(row));
  }
  Block& b = rows_.insert(row, at);
  b.col = col;
  b.slot = -1;
  copy_entries(a, b.a);
}

bool BlockSparseLu::factorize(const std::vector<int>& row_order, const std::vector<int>& pivot_cols,
                              long long max_block_ops) {
  replayed_ = false;
  if (program_matches(row_order, pivot_cols)) {
    const Replay outcome = replay(pivot_cols, max_block_ops);
    if (outcome != Replay::PivotChanged) {
      replayed_ = true;
      return outcome == Replay::Done;
    }
    // A row chose another pivot on these values: eliminate afresh (the assembled rows are
    // untouched by a replay) and record the new program.
  }
  return eliminate_and_record(row_order, pivot_cols, max_block_ops);
}

int BlockSparseLu::pattern_slot(int row, int col) const {
  const Program& p = program_;
  const auto begin = p.cols.begin() + p.row_start[row], end = p.cols.begin() + p.row_start[row + 1];
  const auto it = std::lower_bound(begin, end, col);
  return it != end && *it == col ? static_cast<int>(it - p.cols.begin()) : -1;
}

bool BlockSparseLu::refactorize(long long max_block_ops) {
  replayed_ = true;
  return replay({}, max_block_ops) == Replay::Done;  // diagonal pivots: never PivotChanged
}

bool BlockSparseLu::program_matches(const std::vector<int>& row_order,
                                    const std::vector<int>& pivot_cols) {
  const Program& p = program_;
  if (!p.valid || p.n != n_ || p.row_order != row_order || p.pivot_cols != pivot_cols) return false;
  if (static_cast<int>(values_.size()) < p.slots) values_.resize(p.slots);
  for (int r = 0; r < n_; ++r) {
    const Block* row = rows_.begin(r);
    const int begin = p.row_start[r], size = rows_.size(r);
    if (size != p.row_start[r + 1] - begin) return false;
    for (int j = 0; j < size; ++j) {
      if (row[j].col != p.cols[begin + j]) return false;
      values_[begin + j] = row[j].a;
    }
  }
  return true;
}

BlockSparseLu::Replay BlockSparseLu::replay(const std::vector<int>& pivot_cols,
                                            long long max_block_ops) {
  const Program& p = program_;
  steps_.clear();
  updates_.clear();
  upper_.clear();
  block_ops_ = 0;
  fill_blocks_ = p.fill_blocks;
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const ProgramStep& ps = p.steps[k];
    if (!pivot_cols.empty() && pivot_cols[k] < 0) {
      // The pivot was chosen by value: choose again exactly as the elimination does, and give
      // up the replay if the choice differs.
      PivotChoice choice;
      for (int i = ps.candidates_begin; i < ps.candidates_end; ++i)
        choice.consider(p.candidates[i].col, values_[p.candidates[i].slot]);
      if (choice.col != ps.col) return Replay::PivotChanged;
    }
    const Mat3& pivot = values_[ps.pivot_slot];
    if (is_singular(pivot)) return Replay::Failed;
    Step step;
    step.row = ps.row;
    step.col = ps.col;
    step.pivot_inverse = pivot.inverse();
    for (int u = ps.updates_begin; u < ps.updates_end; ++u) {
      const ProgramUpdate& pu = p.updates[u];
      const Mat3 multiplier = values_[pu.source_slot] * step.pivot_inverse;
      updates_.push_back(Update{pu.target_row, ps.row, multiplier});
      for (int o = pu.ops_begin; o < pu.ops_end; ++o) {
        const ProgramOp& op = p.ops[o];
        const Mat3& source = values_[op.source];
        if (op.target < 0) {
          fill_in(values_[~op.target], multiplier, source);
        } else {
          eliminate(values_[op.target], values_[op.target], multiplier, source);
        }
      }
    }
    block_ops_ = ps.ops_after;
    if (max_block_ops > 0 && block_ops_ > max_block_ops) return Replay::Failed;
    step.upper_begin = static_cast<int>(upper_.size());
    for (int i = ps.upper_begin; i < ps.upper_end; ++i) {
      const Mat3& a = values_[p.upper[i].slot];
      upper_.push_back(SolveBlock{p.upper[i].col, a});
    }
    step.upper_end = static_cast<int>(upper_.size());
    steps_.push_back(step);
  }
  return static_cast<int>(steps_.size()) == n_ ? Replay::Done : Replay::Failed;
}

bool BlockSparseLu::eliminate_and_record(const std::vector<int>& row_order,
                                         const std::vector<int>& pivot_cols,
                                         long long max_block_ops) {
  const int n = size();
  std::vector<char>& row_done = row_done_;
  std::vector<char>& col_done = col_done_;
  row_done.assign(n, 0);
  col_done.assign(n, 0);
  steps_.clear();
  updates_.clear();
  upper_.clear();
  block_ops_ = 0;
  fill_blocks_ = 0;
  // The assembled pattern and its slots, row-major.
  Program& p = program_;
  p.valid = false;
  p.n = n;
  p.row_order.assign(row_order.begin(), row_order.end());
  p.pivot_cols.assign(pivot_cols.begin(), pivot_cols.end());
  p.row_start.resize(n + 1);
  p.cols.clear();
  p.steps.clear();
  p.updates.clear();
  p.ops.clear();
  p.candidates.clear();
  p.upper.clear();
  // The rows holding each column, made here rather than in add(): a replay never needs them.
  // Their order within a column is the order of independent row updates of one pivot, which
  // changes no value.
  col_rows_.reset(n);
  int next_slot = 0;
  for (int r = 0; r < n; ++r) {
    p.row_start[r] = next_slot;
    for (Block* b = rows_.begin(r); b != rows_.end(r); ++b) {
      b->slot = next_slot++;
      p.cols.push_back(b->col);
      col_rows_.push(b->col, r);
    }
  }
  p.row_start[n] = next_slot;
  std::vector<Block>& merged = merged_;
  for (size_t k = 0; k < row_order.size(); ++k) {
    const int r = row_order[k];
    // Row r is no target while it is the pivot row, so its blocks stay as they are; but a target
    // that outgrows its room moves the pool, so the pivot row is found again after each one.
    const int pivot_size = rows_.size(r);
    ProgramStep& ps = p.steps.emplace_back();
    ps.row = r;
    ps.candidates_begin = static_cast<int>(p.candidates.size());
    // Choose the pivot column.
    int c = pivot_cols.empty() ? r : pivot_cols[k];
    if (c < 0) {
      PivotChoice choice;
      for (const Block* b = rows_.begin(r); b != rows_.end(r); ++b) {
        if (col_done[b->col]) continue;
        p.candidates.push_back(SlotRef{b->col, b->slot});
        choice.consider(b->col, b->a);
      }
      c = choice.col;
      if (c < 0) return false;
    }
    ps.candidates_end = static_cast<int>(p.candidates.size());
    const Block* pivot = find_block(rows_.begin(r), rows_.end(r), c);
    if (!pivot || col_done[c] || is_singular(pivot->a)) return false;
    ps.col = c;
    ps.pivot_slot = pivot->slot;
    ps.updates_begin = static_cast<int>(p.updates.size());
    Step step;
    step.row = r;
    step.col = c;
    // The closed-form (cofactor) inverse of the 3×3 pivot: its error is of the order of the
    // pivot's condition number times ε, like LU with full pivoting, which cost a tenth of a
    // jointed chain's step; pivots that is_singular refuses never get here.
    step.pivot_inverse = pivot->a.inverse();
    // Eliminate column c from every remaining row that holds it.
    // (The lists of other columns grow meanwhile: fill-in.)
    col_rows_.for_each(c, [&](int i) {
      if (i == r || row_done[i]) return;
      const Block* target = rows_.begin(i);
      const Block* pivot_row = rows_.begin(r);
      const int target_size = rows_.size(i);
      const Block* tb = find_block(target, target + target_size, c);
      if (!tb) return;
      Mat3 multiplier = tb->a * step.pivot_inverse;
      updates_.push_back(Update{i, r, multiplier});
      ProgramUpdate& pu = p.updates.emplace_back();
      pu.target_row = i;
      pu.source_slot = tb->slot;
      pu.ops_begin = static_cast<int>(p.ops.size());
      merged.clear();
      int a = 0, b = 0;
      while (a < target_size || b < pivot_size) {
        int ca = a < target_size ? target[a].col : n;
        int cb = b < pivot_size ? pivot_row[b].col : n;
        if (ca < cb) {
          if (ca != c) merged.push_back(target[a]);
          ++a;
        } else if (cb < ca) {
          if (cb != c) {
            // Written in place: a Block temporary, stored by Eigen in 8- and 16-byte pieces and
            // copied out in 16-byte pieces at other offsets, stalled on every copy (failed
            // store-to-load forwarding: a quarter of capsule_chain_50's elimination time).
            Block& out = merged.emplace_back();
            out.col = cb;
            out.slot = next_slot++;
            fill_in(out.a, multiplier, pivot_row[b].a);
            p.ops.push_back(ProgramOp{~out.slot, pivot_row[b].slot});
            col_rows_.push(cb, i);
            ++fill_blocks_;
          }
          ++b;
          ++block_ops_;
        } else {
          if (ca != c) {
            Block& out = merged.emplace_back();
            out.col = ca;
            out.slot = target[a].slot;
            eliminate(out.a, target[a].a, multiplier, pivot_row[b].a);
            p.ops.push_back(ProgramOp{out.slot, pivot_row[b].slot});
          }
          ++a;
          ++b;
          ++block_ops_;
        }
      }
      pu.ops_end = static_cast<int>(p.ops.size());
      rows_.assign(i, merged.data(), merged.data() + merged.size());
    });
    ps.updates_end = static_cast<int>(p.updates.size());
    row_done[r] = 1;
    col_done[c] = 1;
    ps.ops_after = block_ops_;
    if (max_block_ops > 0 && block_ops_ > max_block_ops) return false;
    // Row r is final now: later eliminations skip it.
    step.upper_begin = static_cast<int>(upper_.size());
    ps.upper_begin = static_cast<int>(p.upper.size());
    for (const Block* blk = rows_.begin(r); blk != rows_.end(r); ++blk) {
      if (blk->col != c) {
        upper_.push_back(SolveBlock{blk->col, blk->a});
        p.upper.push_back(SlotRef{blk->col, blk->slot});
      }
    }
    step.upper_end = static_cast<int>(upper_.size());
    ps.upper_end = static_cast<int>(p.upper.size());
    steps_.push_back(step);
  }
  p.slots = next_slot;
  p.fill_blocks = fill_blocks_;
  p.valid = static_cast<int>(steps_.size()) == n;
  return p.valid;
}

void BlockSparseLu::solve(const std::vector<Vec3>& b, std::vector<Vec3>& x) const {
  y_.assign(b.begin(), b.end());
  x.resize(b.size());
  substitute(y_.data(), x.data());
}

void BlockSparseLu::solve_in_place(std::vector<Vec3>& bx) const {
  // Each step's pivot column is its row: the back substitution writes x_r where y_r was, after
  // its last read (ragdolls_20's super-block solves: the copy of b was 2% of each solve).
  substitute(bx.data(), bx.data());
}

void BlockSparseLu::substitute(Vec3* const y, Vec3* const out) const {
  // Raw pointers: through the vectors, every store to y or x made the compiler reload their
  // data pointers (ragdolls_20's super-block solves: 39 instructions a block product).
  for (const Update* u = updates_.data(), *end = u + updates_.size(); u != end; ++u)
    y[u->target_row] -= u->multiplier * y[u->pivot_row];
  // Back substitution writes every column (one per step) before an upper block reads it.
  const SolveBlock* const upper = upper_.data();
  for (const Step* step = steps_.data() + steps_.size(); step != steps_.data();) {
    --step;
    Vec3 rhs = y[step->row];
    for (int p = step->upper_begin; p < step->upper_end; ++p) rhs -= upper[p].a * out[upper[p].col];
    out[step->col] = step->pivot_inverse * rhs;
  }
}

}  // namespace impetus
