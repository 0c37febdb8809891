// A fixed set of read-only connections handed out one caller at a time, internal to store/.
// Thread-safe: `Acquire` blocks while every connection is in use.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/sqlite_connection.h"

namespace trainyard::store::internal {

class ConnectionPool {
 public:
  // Returns its connection to the pool when destroyed.
  class Lease {
   public:
    Lease(ConnectionPool& pool, std::unique_ptr<Connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.Release(std::move(connection_)); }

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }

   private:
    ConnectionPool& pool_;
    std::unique_ptr<Connection> connection_;
  };

  // Opens `size` read-only connections to `path`.
  static Result<std::unique_ptr<ConnectionPool>> Open(const std::string& path, int size);

  Lease Acquire();

 private:
  ConnectionPool() = default;
  void Release(std::unique_ptr<Connection> connection);

  std::mutex mu_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
};

}  // namespace trainyard::store::internal
