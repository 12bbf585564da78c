//! The client's address, as sign-in throttling and rate limits key it: the socket's peer, or —
//! only when that peer is a configured trusted proxy — the address the proxy says it forwarded.
//! A header anyone can send is never believed on its own, or one client could pose as many.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;

use super::Core;

/// The address requests are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

/// Requests served without connection info (in-process calls) share one key.
const UNKNOWN: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

/// The client of a request that arrived from `peer` with `headers`. Behind trusted proxies the
/// `X-Forwarded-For` chain is read from the right, skipping the trusted hops: the first address
/// no trusted proxy vouches for is the client (entries further left were written by it).
pub fn client_ip(headers: &HeaderMap, peer: Option<IpAddr>, trusted: &[IpAddr]) -> IpAddr {
    let Some(peer) = peer else {
        return UNKNOWN;
    };
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().parse::<IpAddr>())
        .collect::<Result<_, _>>()
        // A garbled chain is not evidence of anything: key by the proxy itself.
        .unwrap_or_default();
    hops.into_iter()
        .rev()
        .find(|ip| !trusted.contains(ip))
        .unwrap_or(peer)
}

/// The trusted proxies of the configuration; entries that are not addresses were refused when
/// the configuration was loaded.
pub fn trusted_proxies(core: &Core) -> Vec<IpAddr> {
    core.config
        .limits
        .trusted_proxies
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect()
}

pub fn of_parts(headers: &HeaderMap, extensions: &axum::http::Extensions, trusted: &[IpAddr]) -> IpAddr {
    let peer = extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    client_ip(headers, peer, trusted)
}

impl<S> FromRequestParts<S> for ClientAddr
where
    S: Send + Sync,
    Core: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let core = Core::from_ref(state);
        Ok(ClientAddr(of_parts(
            &parts.headers,
            &parts.extensions,
            &trusted_proxies(&core),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn forwarded(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", v.parse().unwrap());
        h
    }

    #[test]
    fn a_forwarded_header_counts_only_from_a_trusted_proxy() {
        let h = forwarded("203.0.113.7");
        assert_eq!(client_ip(&h, Some(ip("198.51.100.1")), &[]), ip("198.51.100.1"));
        assert_eq!(
            client_ip(&h, Some(ip("198.51.100.1")), &[ip("10.0.0.1")]),
            ip("198.51.100.1"),
            "the peer is not the trusted proxy"
        );
        assert_eq!(
            client_ip(&h, Some(ip("10.0.0.1")), &[ip("10.0.0.1")]),
            ip("203.0.113.7")
        );
        assert_eq!(client_ip(&HeaderMap::new(), None, &[]), UNKNOWN);
    }

    #[test]
    fn the_chain_is_read_from_the_right_past_trusted_hops() {
        let trusted = [ip("10.0.0.1"), ip("10.0.0.2")];
        // The client wrote a fake first entry; the proxies appended what they saw.
        let h = forwarded("1.1.1.1, 203.0.113.7, 10.0.0.2");
        assert_eq!(client_ip(&h, Some(ip("10.0.0.1")), &trusted), ip("203.0.113.7"));
        assert_eq!(
            client_ip(&forwarded("not-an-ip"), Some(ip("10.0.0.1")), &trusted),
            ip("10.0.0.1"),
            "garbled chain: the proxy itself"
        );
        assert_eq!(
            client_ip(&HeaderMap::new(), Some(ip("10.0.0.1")), &trusted),
            ip("10.0.0.1")
        );
    }
}
