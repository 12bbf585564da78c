//! The request's language. Messages the server writes (validation failures, errors, "操作成功")
//! follow the console's language, which it sends as `Accept-Language`; Chinese is the default.

use std::borrow::Cow;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Zh,
    En,
}

tokio::task_local! {
    static LANG: Lang;
}

impl Lang {
    /// Picks the first language of an `Accept-Language` value that we speak.
    pub fn from_accept_language(value: &str) -> Lang {
        for tag in value.split(',') {
            let tag = tag.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            if tag.starts_with("zh") {
                return Lang::Zh;
            }
            if tag.starts_with("en") {
                return Lang::En;
            }
        }
        Lang::Zh
    }

    /// The language of the request being handled (Chinese outside a request).
    pub fn current() -> Lang {
        LANG.try_with(|l| *l).unwrap_or(Lang::Zh)
    }
}

/// Middleware that makes the request's language available to everything that answers it.
pub async fn scope(req: Request, next: Next) -> Response {
    let lang = req
        .headers()
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map(Lang::from_accept_language)
        .unwrap_or(Lang::Zh);
    LANG.scope(lang, next.run(req)).await
}

/// A message in both languages; rendered in the request's language when the response is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub zh: Cow<'static, str>,
    pub en: Cow<'static, str>,
}

impl Text {
    pub const fn new(zh: &'static str, en: &'static str) -> Self {
        Text {
            zh: Cow::Borrowed(zh),
            en: Cow::Borrowed(en),
        }
    }

    pub fn owned(zh: impl Into<String>, en: impl Into<String>) -> Self {
        Text {
            zh: Cow::Owned(zh.into()),
            en: Cow::Owned(en.into()),
        }
    }

    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }

    pub fn render(&self) -> String {
        self.get(Lang::current()).to_owned()
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_first_spoken_language() {
        assert_eq!(Lang::from_accept_language("en-US,en;q=0.9"), Lang::En);
        assert_eq!(Lang::from_accept_language("zh-CN,zh;q=0.9,en;q=0.8"), Lang::Zh);
        assert_eq!(Lang::from_accept_language("fr-FR, en;q=0.5"), Lang::En);
        assert_eq!(Lang::from_accept_language("fr-FR"), Lang::Zh);
        assert_eq!(Lang::from_accept_language(""), Lang::Zh);
    }
}
