//! The SMS providers, each implemented from its public API documentation, signatures included:
//!
//! - Aliyun SMS (`dysmsapi`, `SendSms`, version 2017-05-25): an RPC call whose parameters are
//!   signed with HMAC-SHA1 (signature version 1.0): the sorted, RFC 3986-encoded parameters,
//!   `POST&%2F&{encoded}`, keyed with `{AccessKeySecret}&`.
//! - Tencent Cloud SMS (`SendSms`, version 2021-01-11): a JSON call signed with TC3-HMAC-SHA256
//!   (canonical request over `content-type;host` and the payload's SHA-256, a key derived
//!   from `TC3{SecretKey}`, the date, `sms` and `tc3_request`).
//! - A generic HTTP gateway: a JSON POST to the configured URL with `X-Timestamp` and
//!   `X-Signature` = hex HMAC-SHA256(secret, `{timestamp}\n{body}`).

use std::collections::BTreeMap;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

pub const ALIYUN: i64 = 1;
pub const TENCENT: i64 = 2;
pub const GENERIC: i64 = 3;

/// A configuration as the adapters need it (the secret opened).
#[derive(Debug, Clone)]
pub struct Provider {
    pub category: i64,
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
    pub region_id: String,
    pub sign_name: String,
    pub app_id: String,
    pub template_id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SmsError {
    #[error("provider unreachable: {0}")]
    Transport(String),
    #[error("provider refused: {0}")]
    Refused(String),
    #[error("unknown provider kind {0}")]
    Kind(i64),
}

impl SmsError {
    /// Whether trying again later may succeed (an outage, not a refusal).
    pub fn is_transient(&self) -> bool {
        matches!(self, SmsError::Transport(_))
    }
}

/// Percent-encoding as Aliyun's RPC signature wants it (RFC 3986 unreserved kept).
pub fn aliyun_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The Aliyun RPC signature of `params` (without `Signature`) for `method`.
pub fn aliyun_signature(method: &str, params: &BTreeMap<String, String>, secret: &str) -> String {
    use base64::Engine;
    let canonical = params
        .iter()
        .map(|(k, v)| format!("{}={}", aliyun_encode(k), aliyun_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let to_sign = format!("{method}&{}&{}", aliyun_encode("/"), aliyun_encode(&canonical));
    let mut mac = <Hmac<sha1::Sha1> as Mac>::new_from_slice(format!("{secret}&").as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(to_sign.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

fn hmac256(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// The TC3-HMAC-SHA256 `Authorization` header of a Tencent Cloud POST of `payload` to `host`.
pub fn tencent_authorization(
    secret_id: &str,
    secret_key: &str,
    host: &str,
    service: &str,
    timestamp: i64,
    payload: &str,
) -> String {
    let date = chrono::DateTime::from_timestamp(timestamp, 0)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let canonical = format!(
        "POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:{host}\n\ncontent-type;host\n{}",
        hex::encode(Sha256::digest(payload.as_bytes()))
    );
    let scope = format!("{date}/{service}/tc3_request");
    let to_sign = format!(
        "TC3-HMAC-SHA256\n{timestamp}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    let k_date = hmac256(format!("TC3{secret_key}").as_bytes(), &date);
    let k_service = hmac256(&k_date, service);
    let k_signing = hmac256(&k_service, "tc3_request");
    let signature = hex::encode(hmac256(&k_signing, &to_sign));
    format!(
        "TC3-HMAC-SHA256 Credential={secret_id}/{scope}, SignedHeaders=content-type;host, Signature={signature}"
    )
}

/// The generic gateway's signature of `body` sent at `timestamp`.
pub fn generic_signature(secret: &str, timestamp: i64, body: &str) -> String {
    hex::encode(hmac256(secret.as_bytes(), &format!("{timestamp}\n{body}")))
}

fn http() -> Result<reqwest::Client, SmsError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(15))
        .connect_timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| SmsError::Transport(e.to_string()))
}

fn transport(e: reqwest::Error) -> SmsError {
    SmsError::Transport(e.to_string())
}

impl Provider {
    /// Sends the template to `phones` with `params` (template variables by name).
    pub async fn send(&self, phones: &[String], params: &BTreeMap<String, String>) -> Result<(), SmsError> {
        match self.category {
            ALIYUN => self.send_aliyun(phones, params).await,
            TENCENT => self.send_tencent(phones, params).await,
            GENERIC => self.send_generic(phones, params).await,
            other => Err(SmsError::Kind(other)),
        }
    }

    fn endpoint_or(&self, default: &str) -> String {
        let e = self.endpoint.trim().trim_end_matches('/');
        if e.is_empty() {
            default.to_owned()
        } else {
            e.to_owned()
        }
    }

    async fn send_aliyun(
        &self,
        phones: &[String],
        params: &BTreeMap<String, String>,
    ) -> Result<(), SmsError> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|e| SmsError::Transport(e.to_string()))?;
        let mut q: BTreeMap<String, String> = BTreeMap::new();
        let region = if self.region_id.trim().is_empty() {
            "cn-hangzhou"
        } else {
            self.region_id.trim()
        };
        for (k, v) in [
            ("Action", "SendSms"),
            ("Version", "2017-05-25"),
            ("Format", "JSON"),
            ("SignatureMethod", "HMAC-SHA1"),
            ("SignatureVersion", "1.0"),
            ("RegionId", region),
            ("AccessKeyId", self.access_key.trim()),
            ("SignName", self.sign_name.trim()),
            ("TemplateCode", self.template_id.trim()),
        ] {
            q.insert(k.into(), v.into());
        }
        q.insert("SignatureNonce".into(), hex::encode(nonce));
        q.insert(
            "Timestamp".into(),
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        );
        q.insert("PhoneNumbers".into(), phones.join(","));
        q.insert(
            "TemplateParam".into(),
            serde_json::to_string(params).unwrap_or_else(|_| "{}".into()),
        );
        let signature = aliyun_signature("POST", &q, &self.secret_key);
        q.insert("Signature".into(), signature);
        let body = serde_urlencoded::to_string(&q).map_err(|e| SmsError::Transport(e.to_string()))?;
        let res = http()?
            .post(format!("{}/", self.endpoint_or("https://dysmsapi.aliyuncs.com")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(transport)?;
        let status = res.status();
        let text = res.text().await.map_err(transport)?;
        if status.is_server_error() {
            return Err(SmsError::Transport(format!("HTTP {status}")));
        }
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if answer["Code"] == "OK" {
            Ok(())
        } else {
            Err(SmsError::Refused(format!(
                "{} {}",
                answer["Code"], answer["Message"]
            )))
        }
    }

    async fn send_tencent(
        &self,
        phones: &[String],
        params: &BTreeMap<String, String>,
    ) -> Result<(), SmsError> {
        let endpoint = self.endpoint_or("https://sms.tencentcloudapi.com");
        let host = endpoint
            .split("://")
            .nth(1)
            .unwrap_or(&endpoint)
            .split('/')
            .next()
            .unwrap_or("")
            .to_owned();
        let numbers: Vec<String> = phones
            .iter()
            .map(|p| {
                if p.starts_with('+') {
                    p.clone()
                } else {
                    format!("+86{p}")
                }
            })
            .collect();
        let payload = serde_json::json!({
            "PhoneNumberSet": numbers,
            "SmsSdkAppId": self.app_id.trim(),
            "SignName": self.sign_name.trim(),
            "TemplateId": self.template_id.trim(),
            // Tencent templates take positional values: in the order of the variables' names.
            "TemplateParamSet": params.values().collect::<Vec<_>>(),
        })
        .to_string();
        let timestamp = chrono::Utc::now().timestamp();
        let region = if self.region_id.trim().is_empty() {
            "ap-guangzhou"
        } else {
            self.region_id.trim()
        };
        let auth = tencent_authorization(
            self.access_key.trim(),
            &self.secret_key,
            &host,
            "sms",
            timestamp,
            &payload,
        );
        let res = http()?
            .post(format!("{endpoint}/"))
            .header("authorization", auth)
            .header("content-type", "application/json; charset=utf-8")
            .header("x-tc-action", "SendSms")
            .header("x-tc-version", "2021-01-11")
            .header("x-tc-timestamp", timestamp.to_string())
            .header("x-tc-region", region)
            .body(payload)
            .send()
            .await
            .map_err(transport)?;
        let status = res.status();
        let text = res.text().await.map_err(transport)?;
        if status.is_server_error() {
            return Err(SmsError::Transport(format!("HTTP {status}")));
        }
        let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let response = &answer["Response"];
        if let Some(error) = response.get("Error") {
            return Err(SmsError::Refused(format!(
                "{} {}",
                error["Code"], error["Message"]
            )));
        }
        let sent = response["SendStatusSet"].as_array().cloned().unwrap_or_default();
        match sent.iter().find(|s| s["Code"] != "Ok") {
            None if !sent.is_empty() => Ok(()),
            None => Err(SmsError::Refused("empty SendStatusSet".into())),
            Some(s) => Err(SmsError::Refused(format!("{} {}", s["Code"], s["Message"]))),
        }
    }

    async fn send_generic(
        &self,
        phones: &[String],
        params: &BTreeMap<String, String>,
    ) -> Result<(), SmsError> {
        let body = serde_json::json!({
            "phones": phones,
            "template": self.template_id.trim(),
            "sign": self.sign_name.trim(),
            "params": params,
            "accessKey": self.access_key.trim(),
        })
        .to_string();
        let timestamp = chrono::Utc::now().timestamp();
        let res = http()?
            .post(self.endpoint.trim())
            .header("content-type", "application/json; charset=utf-8")
            .header("x-timestamp", timestamp.to_string())
            .header(
                "x-signature",
                generic_signature(&self.secret_key, timestamp, &body),
            )
            .body(body)
            .send()
            .await
            .map_err(transport)?;
        let status = res.status();
        if status.is_success() {
            Ok(())
        } else if status.is_server_error() || status.as_u16() == 429 {
            Err(SmsError::Transport(format!("HTTP {status}")))
        } else {
            Err(SmsError::Refused(format!("HTTP {status}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliyun_encoding_follows_rfc3986() {
        assert_eq!(aliyun_encode("a b*c~d/é"), "a%20b%2Ac~d%2F%C3%A9");
    }

    #[test]
    fn signatures_change_with_every_input() {
        let mut p = BTreeMap::new();
        p.insert("A".to_owned(), "1".to_owned());
        let s1 = aliyun_signature("POST", &p, "k");
        assert_ne!(s1, aliyun_signature("GET", &p, "k"));
        assert_ne!(s1, aliyun_signature("POST", &p, "k2"));
        let t = tencent_authorization("id", "key", "sms.tencentcloudapi.com", "sms", 1_700_000_000, "{}");
        assert!(t.starts_with("TC3-HMAC-SHA256 Credential=id/2023-11-14/sms/tc3_request, SignedHeaders=content-type;host, Signature="));
        assert_ne!(
            t,
            tencent_authorization(
                "id",
                "key",
                "sms.tencentcloudapi.com",
                "sms",
                1_700_000_000,
                "{ }"
            )
        );
    }
}
