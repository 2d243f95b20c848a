#include <blockwire/io/file.hpp>

#include <cerrno>
#include <dirent.h>
#include <csignal>
#include <ctime>
#include <new>
#include <string>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace blockwire {
namespace {

result<int> open_file(const char* path, int flags) noexcept {
  int fd;
  do fd = ::open(path, flags | O_CLOEXEC, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return last_system_error();
  return fd;
}

result<void> write_all(int fd, std::span<const std::byte> bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_system_error();
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));  // a short write: go on
  }
  return success();
}

// SIGPIPE blocked in this thread while it lives; finish(true) consumes the
// one a failed write raised (unless one was pending before: that one is not
// ours to take).
class SigpipeBlocked {
 public:
  SigpipeBlocked() noexcept {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
  void finish(bool raised) noexcept {
    if (raised && !was_pending_) {
      const timespec now{};
      while (sigtimedwait(&pipe_, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
  }
  ~SigpipeBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace

result<void> FileWriter::sync() noexcept {
  if (::fsync(fd_.get()) != 0) return last_system_error();
  return success();
}

result<void> sync_directory(const char* path) noexcept {
  auto fd = open_file(path, O_RDONLY | O_DIRECTORY);
  if (!fd) return fd.error();
  FileDescriptor dir(fd.value(), ownership::own);
  if (::fsync(dir.get()) != 0) return last_system_error();
  return dir.close();
}

bool left_by_dead_process(std::string_view name, std::string_view prefix) noexcept {
  if (!name.starts_with(prefix)) return false;
  long pid = 0;
  std::size_t at = prefix.size();
  for (; at < name.size() && name[at] >= '0' && name[at] <= '9' && pid < (1L << 40); ++at) pid = pid * 10 + (name[at] - '0');
  if (at == prefix.size() || at == name.size() || name[at] != '-' || pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

namespace {

// Temporary files of `target` that a killed writer left (NAME.tmp-PID-N,
// no process PID running): removed, so that kill -9 leaves no litter that
// grows. Best effort: what cannot be listed or removed stays.
void remove_abandoned_temporaries(const std::string& target) {
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  const std::string prefix = (slash == std::string::npos ? target : target.substr(slash + 1)) + ".tmp-";
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  while (const dirent* entry = ::readdir(listing)) {
    if (left_by_dead_process(entry->d_name, prefix)) ::unlinkat(::dirfd(listing), entry->d_name, 0);
  }
  ::closedir(listing);
}

}  // namespace

result<ReplacingFile> ReplacingFile::create(const char* path) noexcept {
  std::string target;
  std::string temporary;
  try {
    target = path;
    temporary = target + ".tmp-";
    remove_abandoned_temporaries(target);
  } catch (const std::bad_alloc&) {
    return std::error_code(ENOMEM, std::system_category());
  }
  // Created like any new file (0644 less the umask), under a name no one
  // else has: mkstemp's would be 0600.
  const std::size_t stem = temporary.size();
  for (unsigned attempt = 0;; ++attempt) {
    temporary.resize(stem);
    temporary += std::to_string(::getpid()) + "-" + std::to_string(static_cast<unsigned long>(::clock()) + attempt * 7919u);
    auto opened = open_file(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL);
    if (opened) return ReplacingFile(FileDescriptor(opened.value(), ownership::own), std::move(target), std::move(temporary));
    if (opened.error().code() != std::errc::file_exists || attempt == 100) return opened.error();
  }
}

ReplacingFile::~ReplacingFile() {
  if (temporary_.empty()) return;
  (void)file_.close();
  ::unlink(temporary_.c_str());
}

result<void> ReplacingFile::write(std::span<const std::byte> bytes) noexcept { return write_all(file_.get(), bytes); }

result<void> ReplacingFile::write_at(std::span<const std::byte> bytes, std::uint64_t offset) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(file_.get(), bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_system_error();
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return success();
}

result<void> ReplacingFile::commit() noexcept {
  if (::fsync(file_.get()) != 0) return last_system_error();
  if (auto r = file_.close(); !r) return r;
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) return last_system_error();
  temporary_.clear();
  const auto slash = path_.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
  return sync_directory(parent.c_str());
}

result<void> write_file_atomically(const char* path, std::span<const std::byte> bytes) noexcept {
  auto file = ReplacingFile::create(path);
  if (!file) return file.error();
  if (auto r = file.value().write(bytes); !r) return r;
  return file.value().commit();
}

result<FileWriter> FileWriter::create_new(const char* path) noexcept {
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_EXCL);
  if (!fd) return fd.error();
  return FileWriter(fd.value(), ownership::own);
}

result<FileWriter> FileWriter::create(const char* path) noexcept {
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();
  return FileWriter(fd.value(), ownership::own);
}

result<FileWriter> FileWriter::append(const char* path) noexcept {
  auto fd = open_file(path, O_WRONLY | O_CREAT | O_APPEND);
  if (!fd) return fd.error();
  return FileWriter(fd.value(), ownership::own);
}

result<void> FileWriter::write(std::span<const std::byte> bytes) noexcept {
  if (may_raise_sigpipe_ == pipe_kind::unknown) {
    struct stat st;
    const bool pipe = ::fstat(fd_.get(), &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    may_raise_sigpipe_ = pipe ? pipe_kind::yes : pipe_kind::no;
  }
  if (may_raise_sigpipe_ == pipe_kind::no) return write_all(fd_.get(), bytes);
  SigpipeBlocked blocked;
  auto r = write_all(fd_.get(), bytes);
  blocked.finish(!r && r.error().code() == std::errc::broken_pipe);
  return r;
}

result<FileReader> FileReader::open(const char* path) noexcept {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return fd.error();
  return FileReader(fd.value(), ownership::own);
}

result<std::size_t> FileReader::read_some(std::span<std::byte> buffer) noexcept {
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer.data(), buffer.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return last_system_error();
  }
}

result<void> read_at(int fd, std::span<std::byte> out, std::uint64_t offset) noexcept {
  while (!out.empty()) {
    const ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::error_code(errno, std::system_category());
    if (n == 0) return io::errc::truncated;
    out = out.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return success();
}

result<FileDescriptor> lock_file(const char* path, bool create) noexcept {
  int fd;
  do fd = ::open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (!create && errno == ENOENT) return FileDescriptor{};
    return std::error_code(errno, std::system_category());
  }
  FileDescriptor owned(fd, ownership::own);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd, F_OFD_SETLK, &lock) != 0) {
    if (errno == EAGAIN || errno == EACCES) return io::errc::locked;
    return std::error_code(errno, std::system_category());
  }
  return owned;
}

}  // namespace blockwire
