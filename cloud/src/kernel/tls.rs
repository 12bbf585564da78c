//! TLS for the hub's own listeners (the gateways' MQTT and, when configured, HTTPS): the
//! certificate chain and key are read from the configured PEM files once at start, and a
//! mistake there stops the start with the setting and the file named.
//!
//! rustls runs on the *ring* provider, named explicitly like the edge does: if another crate of
//! the build enabled aws-lc-rs too, rustls would refuse to pick a provider at run time.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;

use crate::config::TlsFiles;

/// A client must finish its handshake within this, so idle sockets do not pile up.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// `setting` is the configuration key (`https.cert_file`), `path` the file it names.
    #[error("{setting} {path}: {message}")]
    File {
        setting: String,
        path: String,
        message: String,
    },
}

/// The protocol spoken inside TLS, announced through ALPN.
#[derive(Debug, Clone, Copy)]
pub enum Alpn {
    /// HTTP/1.1 (axum serves HTTP/1 only in this build).
    Http1,
    /// MQTT: no ALPN, which is what MQTT clients (the edge's rumqttc among them) expect.
    None,
}

/// Reads `files` (the settings under `section`, e.g. `broker.tls`) into an acceptor.
pub fn acceptor(files: &TlsFiles, section: &str, alpn: Alpn) -> Result<TlsAcceptor, TlsError> {
    let cert_setting = format!("{section}.cert_file");
    let key_setting = format!("{section}.key_file");
    let fail = |setting: &str, path: &str, message: String| TlsError::File {
        setting: setting.to_owned(),
        path: path.to_owned(),
        message,
    };
    let read = |setting: &str, path: &str| {
        std::fs::read(path).map_err(|e| fail(setting, path, format!("cannot be read: {e}")))
    };
    let (cert_path, key_path) = (files.cert_file.trim(), files.key_file.trim());

    let pem = read(&cert_setting, cert_path)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(&cert_setting, cert_path, format!("is not valid PEM: {e}")))?;
    if chain.is_empty() {
        return Err(fail(&cert_setting, cert_path, "holds no PEM certificate".into()));
    }
    let pem = read(&key_setting, key_path)?;
    let key = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        fail(
            &key_setting,
            key_path,
            format!("holds no usable PEM private key: {e}"),
        )
    })?;

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(&cert_setting, cert_path, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            fail(
                &key_setting,
                key_path,
                format!("does not fit the certificate in {cert_path}: {e}"),
            )
        })?;
    if let Alpn::Http1 = alpn {
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
    }
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A TLS listener for `axum::serve`: connections are accepted and their handshakes run in
/// their own tasks, so a slow or broken client never holds up the next one; only finished
/// handshakes reach the server.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    pub fn new(listener: TcpListener, acceptor: TlsAcceptor) -> std::io::Result<TlsListener> {
        let local = listener.local_addr()?;
        let (tx, ready) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                // The server dropping the listener (its stop) ends this loop.
                let accepted = tokio::select! {
                    _ = tx.closed() => return,
                    accepted = listener.accept() => accepted,
                };
                let (tcp, peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::warn!(error = %e, "accepting an HTTPS connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = tcp.set_nodelay(true);
                let (tx, acceptor) = (tx.clone(), acceptor.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                        Ok(Ok(stream)) => {
                            let _ = tx.send((stream, peer)).await;
                        }
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake refused"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { ready, local })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accept task only ends when this listener is dropped.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}
