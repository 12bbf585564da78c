//! Object storage configurations (`blade-resource/oss`) and uploads through the enabled one, into
//! a real S3-compatible server; attachments (`blade-resource/attach`) and the tenant quota.

use crate::support::TestApp;
use crate::support::pytools::Moto;
use pv_cloud::kernel::sql::Value;
use serde_json::json;

const OSS: &str = "/api/blade-resource/oss";
const ATTACH: &str = "/api/blade-resource/attach";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR a station picture";

fn md5_hex_bytes(bytes: &[u8]) -> String {
    use md5::Digest;
    hex::encode(md5::Md5::digest(bytes))
}

fn s3_config(moto: &Moto, code: &str, bucket: &str) -> serde_json::Value {
    json!({
        "category": 2, "ossCode": code, "endpoint": moto.url, "bucketName": bucket,
        "region": "us-east-1", "accessKey": "test-access", "secretKey": "very-secret-key-1234",
        "pathStyle": 1, "remark": "moto"
    })
}

/// The key of an upload inside the bucket: the stored name, from its link.
fn key_of(link: &str) -> String {
    link.split("/oss/endpoint/file/")
        .nth(1)
        .and_then(|s| s.split('?').next())
        .expect("stored name in link")
        .to_owned()
}

#[tokio::test]
async fn uploads_go_to_the_enabled_s3_store_and_removing_the_attachment_deletes_the_object() {
    let moto = Moto::start();
    moto.create_bucket("pv-files").await;
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    // An S3 configuration needs its endpoint, bucket and both keys.
    let mut missing = s3_config(&moto, "s3-main", "pv-files");
    missing["secretKey"] = json!("");
    let refused = admin.submit(OSS, missing).await.fails(400);
    assert!(refused.msg().contains("SecretKey"), "{}", refused.msg());
    let good = admin
        .submit(OSS, s3_config(&moto, "s3-main", "pv-files"))
        .await
        .ok()
        .id();
    let wrong_bucket = admin
        .submit(OSS, s3_config(&moto, "s3-wrong", "no-such-bucket"))
        .await
        .ok()
        .id();
    let local = admin
        .submit(OSS, json!({"category": 1, "ossCode": "disk"}))
        .await
        .ok()
        .id();

    // The secret is stored sealed and never answered.
    let listed = admin.get(&format!("{OSS}/list?current=1&size=10")).await.ok();
    assert_eq!(listed.data()["total"], 3);
    assert!(
        !listed.body.to_string().contains("very-secret-key"),
        "{}",
        listed.body
    );
    let detail = admin.get(&format!("{OSS}/detail?id={good}")).await.ok();
    assert!(detail.data().get("secretKey").is_none());
    assert_eq!(detail.data()["bucketName"], "pv-files");
    let sealed = app
        .scalar_text(
            "SELECT secret_key FROM blade_oss WHERE id = ?",
            vec![Value::Int(good.parse().unwrap())],
        )
        .await
        .unwrap();
    assert!(
        sealed.starts_with("v1:") && !sealed.contains("very-secret"),
        "{sealed}"
    );
    // An edit that leaves the secret blank keeps it.
    let mut edit = s3_config(&moto, "s3-main", "pv-files");
    edit["id"] = json!(good);
    edit["secretKey"] = json!("");
    admin.submit(OSS, edit).await.ok();
    assert_eq!(
        app.scalar_text(
            "SELECT secret_key FROM blade_oss WHERE id = ?",
            vec![Value::Int(good.parse().unwrap())]
        )
        .await
        .unwrap(),
        sealed
    );

    // A bucket that does not answer is never enabled.
    let bad = admin
        .post(&format!("{OSS}/enable?id={wrong_bucket}"))
        .await
        .fails(400);
    assert!(bad.msg().contains("存储桶"), "{}", bad.msg());
    admin.post(&format!("{OSS}/enable?id={local}")).await.ok();
    admin.post(&format!("{OSS}/enable?id={good}")).await.ok();
    let statuses = app
        .scalar_i64(
            "SELECT COUNT(*) FROM blade_oss WHERE status = 2 AND is_deleted = 0",
            vec![],
        )
        .await;
    assert_eq!(statuses, 1, "one enabled configuration per tenant");

    // An image and a file land in the bucket, and their links serve them back.
    let image = admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-image",
            "roof.png",
            PNG.to_vec(),
        )
        .await
        .ok();
    let link = image.data()["link"].as_str().unwrap().to_owned();
    let key = key_of(&link);
    assert_eq!(moto.object_md5("pv-files", &key).await, Some(md5_hex_bytes(PNG)));
    let (status, _, body) = admin.raw(reqwest::Method::GET, &link).await;
    assert_eq!((status, body.as_slice()), (200, PNG));
    let report = admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "notes.txt",
            b"inverter 3 fan noisy".to_vec(),
        )
        .await
        .ok();
    let report_key = key_of(report.data()["link"].as_str().unwrap());
    assert_eq!(
        moto.object_md5("pv-files", &report_key).await,
        Some(md5_hex_bytes(b"inverter 3 fan noisy"))
    );

    // Both are attachments, with their store; a download answers the bytes as a file.
    let attaches = admin.get(&format!("{ATTACH}/list?current=1&size=10")).await.ok();
    assert_eq!(attaches.data()["total"], 2);
    let rows = attaches.data()["records"].as_array().unwrap().clone();
    assert!(rows.iter().all(|r| r["ossCode"] == "s3-main"), "{rows:?}");
    let image_row = rows.iter().find(|r| r["originalName"] == "roof.png").unwrap();
    let (status, headers, body) = admin
        .raw(
            reqwest::Method::GET,
            &format!(
                "/api/blade-resource/attach/download?id={}",
                image_row["id"].as_str().unwrap()
            ),
        )
        .await;
    assert_eq!((status, body.as_slice()), (200, PNG));
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("roof.png")
    );

    // Rows are made by uploading: the menu grants no `attach_add`.
    admin
        .submit(ATTACH, json!({"originalName": "x.txt"}))
        .await
        .fails(403);

    // Removing the attachment deletes the object from the server.
    admin.remove(ATTACH, image_row["id"].as_str().unwrap()).await.ok();
    assert_eq!(
        moto.object_md5("pv-files", &key).await,
        None,
        "object gone from the bucket"
    );
    let (status, _, _) = admin.raw(reqwest::Method::GET, &link).await;
    assert_eq!(status, 404);
    assert_eq!(
        admin
            .get(&format!("{ATTACH}/list?current=1&size=10"))
            .await
            .ok()
            .data()["total"],
        1
    );

    // Back to the disk: new uploads go there, the older object still reads from the bucket.
    admin.post(&format!("{OSS}/enable?id={local}")).await.ok();
    let on_disk = admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "later.txt",
            b"on disk".to_vec(),
        )
        .await
        .ok();
    let disk_key = key_of(on_disk.data()["link"].as_str().unwrap());
    assert!(moto.object_md5("pv-files", &disk_key).await.is_none());
    assert!(app.data_dir.join("files").join(&disk_key).exists());
    let (status, _, body) = admin
        .raw(reqwest::Method::GET, report.data()["link"].as_str().unwrap())
        .await;
    assert_eq!(
        (status, body.as_slice()),
        (200, b"inverter 3 fan noisy".as_slice())
    );

    // Temporary credentials: refused with the reason.
    let sts = admin.get(&format!("{OSS}/sts/security/token")).await.fails(400);
    assert!(sts.msg().contains("STS"), "{}", sts.msg());
}

#[tokio::test]
async fn a_tenant_quota_refuses_uploads_beyond_it_with_a_clear_message() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    admin
        .submit(
            "/api/blade-system/param",
            json!({"paramName": "附件配额", "paramKey": "attach.quota.mb.000000", "paramValue": "1"}),
        )
        .await
        .ok();
    admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "a.txt",
            vec![b'a'; 700 * 1024],
        )
        .await
        .ok();
    let refused = admin
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "b.txt",
            vec![b'b'; 400 * 1024],
        )
        .await
        .fails(400);
    assert!(refused.msg().contains("配额 1.0 MB"), "{}", refused.msg());
    let refused_en = admin
        .en()
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "b.txt",
            vec![b'b'; 400 * 1024],
        )
        .await
        .fails(400);
    assert!(refused_en.msg().contains("quota"), "{}", refused_en.msg());
    // Nothing of the refused upload is left behind.
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM blade_attach WHERE is_deleted = 0", vec![])
            .await,
        1
    );
    let incoming = app.data_dir.join("files").join(".incoming");
    assert_eq!(std::fs::read_dir(incoming).map(|d| d.count()).unwrap_or(0), 0);
}
