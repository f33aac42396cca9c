//! Line-oriented searching over byte haystacks, in the style of a grep library.

use std::fmt;
use std::io;

/// An error from searching.
#[derive(Debug)]
pub enum Error {
    Io(io::Error),
    Regex(String),
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        Error::Io(err)
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> io::Error {
        match err {
            Error::Io(err) => err,
            Error::Regex(msg) => io::Error::new(io::ErrorKind::Other, msg),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Io(ref err) => err.fmt(f),
            Error::Regex(ref msg) => write!(f, "regex error: {}", msg),
        }
    }
}

/// Finds matches in a haystack.
pub trait Matcher {
    /// The offset of the first match at or after `at`.
    fn find_at(&self, haystack: &[u8], at: usize) -> Option<usize>;

    fn is_match(&self, haystack: &[u8]) -> bool {
        self.find_at(haystack, 0).is_some()
    }
}

/// A matcher of one literal.
pub struct Literal {
    needle: Vec<u8>,
}

impl Matcher for Literal {
    fn find_at(&self, haystack: &[u8], at: usize) -> Option<usize> {
        haystack[at..].windows(self.needle.len()).position(|w| w == self.needle).map(|i| i + at)
    }
}

impl<'a> Matcher for &'a Literal {
    fn find_at(&self, haystack: &[u8], at: usize) -> Option<usize> {
        (**self).find_at(haystack, at)
    }
}

impl<M: Matcher + ?Sized> Matcher for Box<M> {
    fn find_at(&self, haystack: &[u8], at: usize) -> Option<usize> {
        (**self).find_at(haystack, at)
    }
}

/// Lines of a haystack, without their terminators.
pub struct Lines<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Lines<'b> {
    pub fn new(bytes: &'b [u8]) -> Lines<'b> {
        Lines { bytes, pos: 0 }
    }
}

impl<'b> Iterator for Lines<'b> {
    type Item = &'b [u8];

    fn next(&mut self) -> Option<&'b [u8]> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.pos += end + 1;
        Some(&rest[..end])
    }
}

/// Anything that can be searched line by line.
pub trait Haystack {
    fn count_matching<M: Matcher>(&self, matcher: M) -> usize;
}

impl<T: AsRef<[u8]>> Haystack for T {
    fn count_matching<M: Matcher>(&self, matcher: M) -> usize {
        Lines::new(self.as_ref()).filter(|line| matcher.is_match(line)).count()
    }
}

impl Haystack for [u8] {
    fn count_matching<M: Matcher>(&self, matcher: M) -> usize {
        Lines::new(self).filter(|line| matcher.is_match(line)).count()
    }
}

macro_rules! literal {
    ($s:expr) => {
        Literal { needle: $s.as_bytes().to_vec() }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines() {
        let m = literal!("b");
        assert_eq!(b"a\nb\nab\n".count_matching(&m), 2);
    }
}
