//! E-mail through the configured SMTP server (`mail` in the configuration) with `lettre`: plain,
//! STARTTLS or TLS from the start (rustls on ring, the platform's roots), signed in when a user
//! name is set. Texts come in the recipient's language (zh or en) from [`Template`].

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::MailConfig;

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("no SMTP server is configured (mail.host)")]
    NotConfigured,
    #[error("address {0}: {1}")]
    Address(String, String),
    #[error("message: {0}")]
    Message(String),
    #[error("SMTP: {0}")]
    Smtp(String),
}

impl MailError {
    /// Whether trying again later may succeed (the server, not the message).
    pub fn is_transient(&self) -> bool {
        matches!(self, MailError::Smtp(_))
    }
}

/// A message in both languages; `{name}` placeholders are filled from the values given.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    pub subject_zh: &'static str,
    pub subject_en: &'static str,
    pub body_zh: &'static str,
    pub body_en: &'static str,
}

/// What `mail/test` sends.
pub const TEST: Template = Template {
    subject_zh: "【光伏运维】测试邮件",
    subject_en: "[PV O&M] Test e-mail",
    body_zh: "这是一封测试邮件，由 {user} 于 {time} 发送。收到即表示邮件服务配置正确。",
    body_en: "This is a test e-mail sent by {user} at {time}. Receiving it means e-mail is set up correctly.",
};

impl Template {
    /// (subject, body) in `lang` (`en…` English, anything else Chinese) with `values` filled in.
    pub fn render(&self, lang: &str, values: &[(&str, &str)]) -> (String, String) {
        let en = lang.to_ascii_lowercase().starts_with("en");
        let (subject, body) = if en {
            (self.subject_en, self.body_en)
        } else {
            (self.subject_zh, self.body_zh)
        };
        let fill = |text: &str| {
            values
                .iter()
                .fold(text.to_owned(), |acc, (k, v)| acc.replace(&format!("{{{k}}}"), v))
        };
        (fill(subject), fill(body))
    }
}

fn transport(config: &MailConfig) -> Result<AsyncSmtpTransport<Tokio1Executor>, MailError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let host = config.host.trim();
    if host.is_empty() {
        return Err(MailError::NotConfigured);
    }
    let security = config.security.trim().to_ascii_lowercase();
    let default_port = match security.as_str() {
        "tls" => 465,
        "starttls" => 587,
        _ => 25,
    };
    let tls = || TlsParameters::new(host.to_owned()).map_err(|e| MailError::Smtp(e.to_string()));
    let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
        .port(if config.port == 0 {
            default_port
        } else {
            config.port
        })
        .hello_name(ClientId::Domain("pv-cloud".into()))
        .timeout(Some(Duration::from_secs(20)));
    builder = match security.as_str() {
        "tls" => builder.tls(Tls::Wrapper(tls()?)),
        "starttls" => builder.tls(Tls::Required(tls()?)),
        _ => builder.tls(Tls::None),
    };
    if !config.username.trim().is_empty() {
        builder = builder.credentials(Credentials::new(
            config.username.trim().to_owned(),
            config.password.clone(),
        ));
    }
    Ok(builder.build())
}

/// Sends `subject` and the plain-text `body` to `to`.
pub async fn send(config: &MailConfig, to: &[String], subject: &str, body: &str) -> Result<(), MailError> {
    let transport = transport(config)?;
    let from: Mailbox = config
        .from
        .parse()
        .map_err(|e: lettre::address::AddressError| MailError::Address(config.from.clone(), e.to_string()))?;
    let mut message = Message::builder().from(from).subject(subject);
    for address in to {
        let mailbox: Mailbox = address
            .parse()
            .map_err(|e: lettre::address::AddressError| MailError::Address(address.clone(), e.to_string()))?;
        message = message.to(mailbox);
    }
    let message = message
        .header(ContentType::TEXT_PLAIN)
        .body(body.to_owned())
        .map_err(|e| MailError::Message(e.to_string()))?;
    transport
        .send(message)
        .await
        .map(|_| ())
        .map_err(|e| MailError::Smtp(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_in_both_languages() {
        let (s, b) = TEST.render("en-US", &[("user", "admin"), ("time", "2026-11-29 08:00")]);
        assert!(s.contains("Test") && b.contains("admin") && b.contains("2026-11-29 08:00"));
        let (s, b) = TEST.render("zh", &[("user", "管理员"), ("time", "t")]);
        assert!(s.contains("测试") && b.contains("管理员"));
    }
}

/// `POST /api/blade-resource/mail/test?to=`: a test e-mail through the configured server, in the
/// caller's language, answering the server's refusal when there is one.
pub mod endpoint {
    use axum::extract::State;
    use axum::http::HeaderMap;
    use serde::Deserialize;
    use utoipa::IntoParams;

    use crate::auth::Caller;
    use crate::kernel::extract::Query;
    use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, time};

    #[derive(Debug, Deserialize, IntoParams)]
    pub struct TestParams {
        /// The address to send the test to.
        pub to: String,
    }

    #[utoipa::path(post, path = "/api/blade-resource/mail/test", tag = "resource", params(TestParams),
        responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403)))]
    pub async fn test(
        State(core): State<Core>,
        caller: Caller,
        headers: HeaderMap,
        Query(p): Query<TestParams>,
    ) -> ApiResult<Data<bool>> {
        caller.require(&core, "sms").await?;
        let lang = headers
            .get("accept-language")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("zh");
        let now = chrono::DateTime::from_timestamp_millis(time::now_ms())
            .map(|t| {
                t.with_timezone(&time::offset())
                    .format("%Y-%m-%d %H:%M:%S")
                    .to_string()
            })
            .unwrap_or_default();
        let (subject, body) = super::TEST.render(lang, &[("user", &caller.account), ("time", &now)]);
        super::send(&core.config.mail, &[p.to.trim().to_owned()], &subject, &body)
            .await
            .map_err(|e| {
                ApiError::bad_request(
                    format!("邮件发送失败：{e}"),
                    format!("The e-mail was not sent: {e}"),
                )
            })?;
        Ok(Data(true))
    }
}
