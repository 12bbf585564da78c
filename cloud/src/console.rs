//! The console, built by Vite into `web/dist` and embedded in the binary so one file runs the
//! product. Client-side routes fall back to `index.html`; `/api` and `/ws` never do.

use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use rust_embed::Embed;

#[derive(Embed)]
#[folder = "../web/dist"]
// A checkout where the console was not built yet still compiles; it then answers with a hint.
#[allow_missing = true]
struct Assets;

const NOT_BUILT: &str = "<!doctype html><meta charset=utf-8><title>PV</title>\
<p>The console has not been built into this binary. Run <code>./scripts/run</code> \
(or <code>npm --prefix web run build</code> before building the cloud).</p>";

pub async fn serve(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if !path.is_empty()
        && let Some(file) = Assets::get(path)
    {
        let mime = mime_guess::from_path(path).first_or_octet_stream();
        // Vite puts a content hash in every file name under assets/: those never change.
        let cache = if path.starts_with("assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        return (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_str(mime.as_ref())
                        .unwrap_or(HeaderValue::from_static("application/octet-stream")),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
            ],
            file.data,
        )
            .into_response();
    }
    // A missing file with an extension (a stale chunk, a typo'd image) is a real 404; anything
    // else is a client-side route the console's router resolves.
    let last = path.rsplit('/').next().unwrap_or("");
    if last.contains('.') {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    match Assets::get("index.html") {
        Some(index) => (
            [(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))],
            Html(index.data),
        )
            .into_response(),
        None => Html(NOT_BUILT).into_response(),
    }
}
