//! E-mail through a real SMTP server (aiosmtpd, started by the test, writing a maildir).

use crate::support::TestApp;
use crate::support::pytools::Smtpd;

#[tokio::test]
async fn a_test_email_reaches_the_smtp_server_in_the_callers_language() {
    let smtpd = Smtpd::start();
    let port = smtpd.port;
    let app = TestApp::start_configured(move |c| {
        c.mail.host = "127.0.0.1".into();
        c.mail.port = port;
        c.mail.security = "none".into();
        c.mail.from = "光伏运维 <noreply@pv.test>".into();
    })
    .await;
    let admin = app.as_admin().await;
    admin
        .post_query("/api/blade-resource/mail/test", &[("to", "owner@pv.test")])
        .await
        .ok();
    admin
        .en()
        .post_query("/api/blade-resource/mail/test", &[("to", "owner@pv.test")])
        .await
        .ok();
    let mails = smtpd.wait_for(2).await;
    assert!(mails.iter().any(|m| m.contains("To: owner@pv.test")), "{mails:?}");
    assert!(mails.iter().any(|m| m.contains("Test e-mail")), "{mails:?}");
    // The Chinese subject travels encoded (RFC 2047).
    assert!(mails.iter().any(|m| m.contains("Subject: =?utf-8?")), "{mails:?}");

    // A bad address is refused with the reason; no server is no e-mail.
    admin
        .post_query("/api/blade-resource/mail/test", &[("to", "not an address")])
        .await
        .fails(400);
    let off = TestApp::start().await;
    let refused = off
        .as_admin()
        .await
        .post_query("/api/blade-resource/mail/test", &[("to", "owner@pv.test")])
        .await
        .fails(400);
    assert!(refused.msg().contains("mail.host"), "{}", refused.msg());
}
