//! Which image a file holds, judged by its first bytes (magic numbers), never by its name: an
//! HTML page named `.png` is not a PNG. The same bytes decide whether an upload's content is
//! what its extension claims and whether it may be shown inline.

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

/// Extensions whose files a browser may show inline (images and PDF), once their content is
/// what the extension claims.
pub const INLINE: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "pdf"];

/// Whether `head` (a file's first bytes) is what extension `ext` claims, for the extensions
/// whose formats have magic bytes (images, PDF, the zip family of Office files); any other
/// extension claims nothing checkable and is always served as a download.
pub fn content_matches(ext: &str, head: &[u8]) -> bool {
    let zip = head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06");
    match ext {
        "png" => sniff(head) == Some(ImageKind::Png),
        "jpg" | "jpeg" => sniff(head) == Some(ImageKind::Jpeg),
        "webp" => sniff(head) == Some(ImageKind::Webp),
        "gif" => head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a"),
        "pdf" => head.starts_with(b"%PDF-"),
        "zip" | "docx" | "xlsx" | "pptx" => zip,
        _ => true,
    }
}

/// Whether a stored file may be served inline: an image or PDF extension whose content matched.
pub fn inline(ext: &str, head: &[u8]) -> bool {
    INLINE.contains(&ext) && content_matches(ext, head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_type_must_match_the_content() {
        let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
        assert!(content_matches("png", png));
        assert!(inline("png", png));
        assert!(!content_matches("png", b"<html><script>alert(1)</script>"));
        assert!(!inline("png", b"<html><script>alert(1)</script>"));
        assert!(content_matches("pdf", b"%PDF-1.7\n%"));
        assert!(!content_matches("pdf", b"<script>alert(1)</script>"));
        assert!(content_matches("gif", b"GIF89a\x01\x00"));
        assert!(!content_matches("jpg", png));
        assert!(content_matches("xlsx", b"PK\x03\x04\x14\x00"));
        assert!(!content_matches("docx", b"<html>"));
        assert!(
            content_matches("txt", b"<html>"),
            "nothing to check: served as a download"
        );
        assert!(!inline("txt", b"plain"));
        assert!(!inline("svg", b"<svg/>"));
    }

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
