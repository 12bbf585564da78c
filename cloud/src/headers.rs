//! Security headers of every answer: the console's Content-Security-Policy (exactly the bundled
//! assets plus the configured map-tile and frame hosts), a stricter policy and `no-store` for
//! `/api`, and `nosniff`, `X-Frame-Options` and `Referrer-Policy` everywhere.

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::config::Config;

/// `/api` answers are data, never documents: nothing loads, nothing frames them. Handlers that
/// serve documents (uploaded files) set their own.
pub const API_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// Uploaded images and PDF shown inline: they may draw themselves and nothing else.
pub const FILE_POLICY: &str = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; \
     object-src 'self'; frame-ancestors 'none'";

/// The origin (`scheme://host[:port]`) of a URL template such as
/// `https://{s}.tile.example.com/{z}/{x}/{y}.png`; a `{s}` subdomain becomes `*`. `None` when
/// the template is empty or its host holds another placeholder.
pub fn origin_of(template: &str) -> Option<String> {
    let (scheme, rest) = template.trim().split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?.replace("{s}", "*");
    let valid = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'*'))
        && (!host.contains('*') || host.starts_with("*."));
    valid.then(|| format!("{scheme}://{host}"))
}

/// The console's policy. Scripts only from the hub; styles also inline (antd writes its styles at
/// run time); images also as `data:`/`blob:` (charts, map markers) and from the tile host;
/// fetches and the alarm websocket to the hub alone; frames from the camera and configured hosts.
pub fn console_policy(config: &Config) -> String {
    let tiles = origin_of(&config.console.map_tile_url);
    let mut frames: Vec<String> = config
        .station
        .camera_live_url
        .values()
        .filter_map(|t| origin_of(t))
        .chain(config.console.frame_origins.iter().filter_map(|o| origin_of(o)))
        .collect();
    frames.sort();
    frames.dedup();
    let list = |extra: Vec<String>| {
        std::iter::once("'self'".to_owned())
            .chain(extra)
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src {} data: blob:; font-src 'self' data:; connect-src 'self'; \
         worker-src 'self' blob:; frame-src {}; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'",
        list(tiles.into_iter().collect()),
        list(frames),
    )
}

/// The layers around the `/api` routes alone: their policy, and no caching of any answer (tokens,
/// credentials and personal data travel in them; files set their own cache rule).
pub fn api<S: Clone + Send + Sync + 'static>(api: Router<S>) -> Router<S> {
    api.layer(SetResponseHeaderLayer::if_not_present(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(API_POLICY),
    ))
    .layer(SetResponseHeaderLayer::if_not_present(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    ))
}

/// The layers around everything (console, `/api`, `/ws`).
pub fn everywhere(app: Router, config: &Config) -> Router {
    let policy = HeaderValue::from_str(&console_policy(config)).unwrap_or(HeaderValue::from_static(
        "default-src 'self'; frame-ancestors 'none'",
    ));
    app.layer(SetResponseHeaderLayer::if_not_present(
        header::CONTENT_SECURITY_POLICY,
        policy,
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("DENY"),
    ))
    // The origin only, to other hosts: tile servers ask for it; paths (and signed links) stay.
    .layer(SetResponseHeaderLayer::overriding(
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_come_from_templates() {
        assert_eq!(
            origin_of("https://tile.openstreetmap.org/{z}/{x}/{y}.png").as_deref(),
            Some("https://tile.openstreetmap.org")
        );
        assert_eq!(
            origin_of("http://{s}.tiles.example.com:8080/{z}/{x}/{y}.png").as_deref(),
            Some("http://*.tiles.example.com:8080")
        );
        assert_eq!(origin_of(""), None);
        assert_eq!(origin_of("javascript:alert(1)"), None);
        assert_eq!(origin_of("https://{z}.example.com/x"), None);
        assert_eq!(origin_of("https://a.com; script-src *"), None);
    }

    #[test]
    fn the_console_policy_names_the_configured_hosts_only() {
        let mut config = Config::default();
        config.console.frame_origins = vec!["https://bi.example.com/".into()];
        let p = console_policy(&config);
        assert!(
            p.contains("img-src 'self' https://tile.openstreetmap.org data: blob:"),
            "{p}"
        );
        assert!(p.contains("script-src 'self';"), "{p}");
        assert!(p.contains("https://open.ys7.com"), "{p}");
        assert!(p.contains("https://bi.example.com"), "{p}");
        assert!(p.contains("frame-ancestors 'none'"), "{p}");
        config.console.map_tile_url = String::new();
        assert!(console_policy(&config).contains("img-src 'self' data: blob:"));
    }
}
