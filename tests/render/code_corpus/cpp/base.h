// Formatting library for C++ - the base API, in the style of {fmt}.
//
// Copyright (c) 2012 - present, Example Authors

#ifndef FMT_BASE_H_
#define FMT_BASE_H_

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define FMT_VERSION 110100
#define FMT_CONSTEXPR constexpr
#define FMT_INLINE inline __attribute__((always_inline))
#define FMT_ASSERT(condition, message) \
  ((condition) ? (void)0 : fmt::detail::assert_fail(__FILE__, __LINE__, (message)))

namespace fmt {
inline namespace v11 {

template <typename T> class basic_appender;
struct format_context;
using string_view = struct basic_string_view_tag;

enum class presentation_type : unsigned char { none, debug, string, dec };

namespace detail {
// Suppresses "unused variable" warnings.
template <typename... T> constexpr void ignore_unused(const T&...) {}

[[noreturn]] void assert_fail(const char* file, int line, const char* message);

template <typename Char> constexpr auto length(const Char* s) -> size_t {
  size_t len = 0;
  while (*s++) ++len;
  return len;
}
}  // namespace detail

/// An implementation of `std::basic_string_view` for pre-C++17.
template <typename Char> class basic_string_view {
 private:
  const Char* data_;
  size_t size_;

 public:
  using value_type = Char;

  constexpr basic_string_view() noexcept : data_(nullptr), size_(0) {}
  constexpr basic_string_view(const Char* s, size_t count) noexcept
      : data_(s), size_(count) {}

  constexpr auto data() const noexcept -> const Char* { return data_; }
  constexpr auto size() const noexcept -> size_t { return size_; }
  constexpr auto operator[](size_t pos) const noexcept -> const Char& {
    return data_[pos];
  }
  const Char& front() const { return data_[0]; }
  const Char *begin() const { return data_; }

  operator bool() const noexcept { return size_ != 0; }

  friend auto operator==(basic_string_view lhs, basic_string_view rhs)
      -> bool {
    return lhs.size_ == rhs.size_;
  }
};

/// A contiguous memory buffer with an optional growing ability.
template <typename T> class buffer {
 private:
  T* ptr_;
  size_t size_;
  size_t capacity_;

 protected:
  virtual void grow(size_t capacity) = 0;

 public:
  buffer(const buffer&) = delete;
  virtual ~buffer() {}
  void operator=(const buffer&) = delete;

  auto size() const noexcept -> size_t { return size_; }
  void try_reserve(size_t new_capacity);
  T& operator[](size_t index) { return ptr_[index]; }
  void push_back(const T& value);
};

template <typename T> void buffer<T>::try_reserve(size_t new_capacity) {
  if (new_capacity > capacity_) grow(new_capacity);
}

template <typename T>
void buffer<T>::push_back(const T& value) {
  try_reserve(size_ + 1);
  ptr_[size_++] = value;
}

template <typename T, typename Char = char, typename Enable = void>
struct formatter {
  formatter() = delete;
};

template <typename Char> struct formatter<basic_string_view<Char>, Char> {
  template <typename ParseContext>
  constexpr auto parse(ParseContext& ctx) -> decltype(ctx.begin()) {
    return ctx.begin();
  }
};

template <> struct formatter<bool, char> {
  auto format(bool value, format_context& ctx) const;
};

union arg_value {
  int int_value;
  const char* string;
};

}  // namespace v11
}  // namespace fmt

#endif  // FMT_BASE_H_
