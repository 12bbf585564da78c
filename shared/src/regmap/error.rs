//! Errors of a map, pointing at the file, line and field of the mistake.
//!
//! Whoever writes a map works from a vendor manual, often hundreds of registers long; a message
//! that names `point[37].unit` on line 412 saves them a search, so every check reports through
//! [`Lines`] rather than building its own message.

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

/// A map that cannot be used, with where the mistake is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {field}: {message}", file.display())]
pub struct MapError {
    pub file: PathBuf,
    /// 1-based line of the offending value (0 when the file could not be read).
    pub line: usize,
    /// The key (or table) at fault, e.g. `point[3].unit`.
    pub field: String,
    pub message: String,
}

impl MapError {
    /// An error about the file as a whole (it could not be read or listed): no line to point at.
    pub(super) fn whole_file(file: &Path, message: String) -> MapError {
        MapError {
            file: file.to_path_buf(),
            line: 0,
            field: String::new(),
            message,
        }
    }
}

/// Line numbers from byte offsets of one file: the TOML parser gives spans, people read lines.
pub(super) struct Lines<'a> {
    pub file: &'a Path,
    pub text: &'a str,
}

impl Lines<'_> {
    pub fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    pub fn err<T>(
        &self,
        span: Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, MapError> {
        Err(MapError {
            file: self.file.to_path_buf(),
            line: self.line(span.start),
            field: field.into(),
            message: message.into(),
        })
    }

    /// An error on a line already known (a check across points, after their spans are gone).
    pub fn err_at_line(&self, line: usize, field: impl Into<String>, message: String) -> MapError {
        MapError {
            file: self.file.to_path_buf(),
            line,
            field: field.into(),
            message,
        }
    }

    /// `v` as the integer type `T`, or an error saying which values `field` takes (`what`).
    pub fn int_in<T: TryFrom<i64>>(&self, v: &Spanned<i64>, field: &str, what: &str) -> Result<T, MapError> {
        T::try_from(*v.get_ref()).or_else(|_| self.err(v.span(), field, format!("must be {what}")))
    }
}
