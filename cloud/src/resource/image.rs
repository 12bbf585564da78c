//! Which image a file holds, judged by its first bytes (magic numbers), never by its name: an
//! HTML page named `.png` is not a PNG.

/// The image kinds uploads may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Jpeg,
    Png,
    Webp,
}

/// Bytes needed to recognise every kind.
pub const HEAD_LEN: usize = 12;

impl ImageKind {
    /// The extension a stored file of this kind gets.
    pub fn extension(self) -> &'static str {
        match self {
            ImageKind::Jpeg => "jpg",
            ImageKind::Png => "png",
            ImageKind::Webp => "webp",
        }
    }
}

/// The kind of image `head` (a file's first bytes) starts, if any.
pub fn sniff(head: &[u8]) -> Option<ImageKind> {
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageKind::Jpeg)
    } else if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageKind::Png)
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some(ImageKind::Webp)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_magic_bytes() {
        assert_eq!(sniff(b"\xFF\xD8\xFF\xE0\x00\x10JFIF"), Some(ImageKind::Jpeg));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
            Some(ImageKind::Png)
        );
        assert_eq!(sniff(b"RIFF\x24\x00\x00\x00WEBPVP8 "), Some(ImageKind::Webp));
        assert_eq!(ImageKind::Webp.extension(), "webp");
    }

    #[test]
    fn anything_else_is_not_an_image() {
        assert_eq!(sniff(b"<!DOCTYPE html><html>"), None);
        assert_eq!(
            sniff(b"\x89PNG fake image"),
            None,
            "a PNG signature is 8 exact bytes"
        );
        assert_eq!(sniff(b"RIFF\x24\x00\x00\x00WAVEfmt "), None);
        assert_eq!(sniff(b"RIFF"), None);
        assert_eq!(sniff(b"GIF89a"), None);
        assert_eq!(sniff(b""), None);
    }
}
