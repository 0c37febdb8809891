#include "store/connection_pool.h"

namespace trainyard::store::internal {

Result<std::unique_ptr<ConnectionPool>> ConnectionPool::Open(const std::string& path, int size) {
  std::unique_ptr<ConnectionPool> pool(new ConnectionPool());
  for (int i = 0; i < size; ++i) {
    Result<std::unique_ptr<Connection>> connection = Connection::Open(path, /*read_only=*/true);
    if (!connection.ok()) {
      return connection.status();
    }
    pool->idle_.push_back(std::move(*connection));
  }
  return pool;
}

ConnectionPool::Lease ConnectionPool::Acquire() {
  std::unique_lock lock(mu_);
  available_.wait(lock, [this] { return !idle_.empty(); });
  std::unique_ptr<Connection> connection = std::move(idle_.back());
  idle_.pop_back();
  return Lease(*this, std::move(connection));
}

void ConnectionPool::Release(std::unique_ptr<Connection> connection) {
  {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(connection));
  }
  available_.notify_one();
}

}  // namespace trainyard::store::internal
