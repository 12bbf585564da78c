//! A device that serves fixed register words and nothing else: the golden fixtures, typed from
//! vendor documents, are served through it so the poller is checked against words nobody
//! derived from the map under test.
//!
//! It is strict the way many real devices are: a read that touches a register the fixture does
//! not give is refused with "illegal data address", and the refusal is remembered, so a test
//! can say which registers a map reads that the document did not provide.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use pv_shared::regmap::Function;
use tokio_modbus::server::Service;
use tokio_modbus::{ExceptionCode, Request, Response, SlaveRequest};

/// A read the bank refused: unit, function, start, count.
pub type Refused = (u8, Function, u16, u16);

/// Fixed words per (unit, function, address).
#[derive(Debug, Default, Clone)]
pub struct RegisterBank {
    words: Arc<HashMap<(u8, Function, u16), u16>>,
    refused: Arc<Mutex<Vec<Refused>>>,
}

impl RegisterBank {
    /// `words`: for each unit, the words of each function by address.
    pub fn new(words: BTreeMap<(u8, Function, u16), u16>) -> RegisterBank {
        RegisterBank {
            words: Arc::new(words.into_iter().collect()),
            refused: Arc::default(),
        }
    }

    /// Reads refused so far because they touched a register the bank does not hold.
    pub fn refused(&self) -> Vec<Refused> {
        self.refused.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn has_unit(&self, unit: u8) -> bool {
        self.words.keys().any(|(u, _, _)| *u == unit)
    }

    fn read(&self, unit: u8, function: Function, start: u16, count: u16) -> Result<Vec<u16>, ExceptionCode> {
        let words: Option<Vec<u16>> = (0..count)
            .map(|k| {
                let a = start.checked_add(k)?;
                self.words.get(&(unit, function, a)).copied()
            })
            .collect();
        words.ok_or_else(|| {
            self.refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((unit, function, start, count));
            ExceptionCode::IllegalDataAddress
        })
    }

    fn answer(&self, req: SlaveRequest<'static>) -> Result<Option<Response>, ExceptionCode> {
        // A unit the fixture does not describe stays silent, as on a real RS-485 line.
        if !self.has_unit(req.slave) {
            return Ok(None);
        }
        Ok(Some(match req.request {
            Request::ReadHoldingRegisters(a, n) => {
                Response::ReadHoldingRegisters(self.read(req.slave, Function::Holding, a, n)?)
            }
            Request::ReadInputRegisters(a, n) => {
                Response::ReadInputRegisters(self.read(req.slave, Function::Input, a, n)?)
            }
            _ => return Err(ExceptionCode::IllegalFunction),
        }))
    }

    /// Serves Modbus TCP on `listener` until the task is dropped.
    pub async fn serve_tcp(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let server = tokio_modbus::server::tcp::Server::new(listener);
        let on_connected = |stream: tokio::net::TcpStream, _addr| {
            let svc = self.clone();
            async move {
                let _ = stream.set_nodelay(true);
                Ok(Some((svc, stream)))
            }
        };
        server
            .serve(&on_connected, |e| tracing::debug!(%e, "bank connection ended"))
            .await
    }
}

impl Service for RegisterBank {
    type Request = SlaveRequest<'static>;
    type Response = Option<Response>;
    type Exception = ExceptionCode;
    type Future = std::future::Ready<Result<Option<Response>, ExceptionCode>>;

    fn call(&self, req: Self::Request) -> Self::Future {
        std::future::ready(self.answer(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_served_only_when_every_register_is_given() {
        let bank = RegisterBank::new(BTreeMap::from([
            ((1, Function::Holding, 10), 0xAAAA),
            ((1, Function::Holding, 11), 0xBBBB),
            ((1, Function::Input, 12), 7),
        ]));
        assert_eq!(bank.read(1, Function::Holding, 10, 2), Ok(vec![0xAAAA, 0xBBBB]));
        assert_eq!(
            bank.read(1, Function::Holding, 11, 2),
            Err(ExceptionCode::IllegalDataAddress),
            "12 is an input register, not a holding one"
        );
        assert_eq!(bank.refused(), vec![(1, Function::Holding, 11, 2)]);
        assert!(bank.has_unit(1) && !bank.has_unit(2));
    }
}
