// Formatting library for C++ - the out-of-line parts, in the style of {fmt}'s format.cc.

#include "fmt/format-inl.h"

#include <ostream>
#include <string>

#define FMT_FUNC
#define FMT_CONSTEXPR20 constexpr
#define FMT_BEGIN_NAMESPACE namespace fmt { inline namespace v11 {
#define FMT_END_NAMESPACE }}

FMT_BEGIN_NAMESPACE
namespace detail {

FMT_FUNC void assert_fail(const char* file, int line, const char* message) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s", file, line, message);
  std::terminate();
}

template <typename T>
FMT_CONSTEXPR20 void basic_memory_buffer<T>::grow(size_t size) {
  T* old_data = this->data();
  this->set(new T[size], size);
  delete[] old_data;
}

}  // namespace detail
FMT_END_NAMESPACE

namespace fmt {

class format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~format_error() noexcept override;
};

format_error::~format_error() noexcept = default;

struct writer {
  std::string out;
  writer& get();
  int* position();
  explicit operator std::string() const;
  writer& operator<<(const char* text);
};

writer& writer::get() { return *this; }

int *writer::position() { return nullptr; }

writer::operator std::string() const { return out; }

writer& writer::operator<<(const char* text) {
  out += text;
  return *this;
}

std::ostream& operator<<(std::ostream& os, const writer& w) {
  return os << w.out;
}

bool operator==(const writer& a, const writer& b) { return a.out == b.out; }

template <typename Char>
void vformat_to(buffer<Char>& buf,
                basic_string_view<Char> fmt) {
  buf.append(fmt.begin(), fmt.end());
}

template <> void vformat_to<char>(buffer<char>& buf, basic_string_view<char> fmt) {}

namespace detail::dragonbox {
auto get_cached_power(int k) noexcept -> uint64_t { return k; }
}  // namespace detail::dragonbox

}  // namespace fmt

void fmt::detail::print(std::FILE* f, string_view text) {
  fwrite(text.data(), 1, text.size(), f);
}

void* operator new[](std::size_t size, fmt::detail::tag) { return ::operator new[](size); }

int main() {
  fmt::writer w;
  struct local_point { int x, y; } p{1, 2};
  return p.x;
}
