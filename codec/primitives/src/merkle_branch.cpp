#include <blockwire/codec/merkle_branch.hpp>
#include <blockwire/io/sha256.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace blockwire {

namespace {

Hash256 parent_of(const Hash256& left, const Hash256& right) {
  std::array<std::byte, 64> pair;
  std::copy(left.bytes().begin(), left.bytes().end(), pair.begin());
  std::copy(right.bytes().begin(), right.bytes().end(), pair.begin() + 32);
  return sha256d(pair);
}

}  // namespace

std::vector<Hash256> merkle_branch(std::vector<Hash256> level, std::size_t pos) {
  std::vector<Hash256> branch;
  while (level.size() > 1) {
    branch.push_back(level[(pos ^ 1) < level.size() ? pos ^ 1 : pos]);
    std::vector<Hash256> up;
    up.reserve((level.size() + 1) / 2);
    for (std::size_t i = 0; i < level.size(); i += 2) up.push_back(parent_of(level[i], level[i + 1 < level.size() ? i + 1 : i]));
    level = std::move(up);
    pos /= 2;
  }
  return branch;
}

std::vector<Hash256> merkle_branch(std::span<const Txid> txids, std::size_t pos) {
  std::vector<Hash256> leaves;
  leaves.reserve(txids.size());
  for (const Txid& id : txids) leaves.push_back(id.to_raw_hash());
  return merkle_branch(std::move(leaves), pos);
}

Hash256 merkle_root_from_branch(Hash256 leaf, std::size_t pos, const std::vector<Hash256>& branch) {
  for (const Hash256& other : branch) {
    leaf = (pos & 1) != 0 ? parent_of(other, leaf) : parent_of(leaf, other);
    pos /= 2;
  }
  return leaf;
}

}  // namespace blockwire
