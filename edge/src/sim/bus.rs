//! A simulated bus: devices by unit id, what absent ids answer, and the Modbus servers (TCP,
//! RTU over TCP, RTU on a serial port) that carry it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use pv_shared::regmap::Function;
use tokio_modbus::server::Service;
use tokio_modbus::{ExceptionCode, Request, Response, SlaveRequest};

use super::{Fate, SimDevice};

/// Devices on one simulated bus, by unit id.
#[derive(Debug, Default, Clone)]
pub struct Simulator {
    units: Arc<BTreeMap<u8, Arc<SimDevice>>>,
    /// What unit ids without a device get: silence (`None`, an RS-485 line) or this exception
    /// (a TCP gateway in front of the line).
    absent: Option<ExceptionCode>,
}

impl Simulator {
    pub fn new(units: impl IntoIterator<Item = (u8, Arc<SimDevice>)>) -> Simulator {
        Simulator {
            units: Arc::new(units.into_iter().collect()),
            absent: None,
        }
    }

    /// Answers `code` for unit ids without a device, as a Modbus TCP gateway does (0x0B, 0x0A)
    /// or a device that answers for every id (0x02).
    pub fn with_absent(mut self, code: Option<ExceptionCode>) -> Simulator {
        self.absent = code;
        self
    }

    pub fn unit(&self, unit: u8) -> Option<&Arc<SimDevice>> {
        self.units.get(&unit)
    }

    fn answer(&self, req: SlaveRequest<'static>) -> Result<Option<Response>, ExceptionCode> {
        // Unknown units and dead devices stay silent, as on a real RS-485 line.
        let Some(dev) = self.units.get(&req.slave) else {
            return match self.absent {
                Some(code) => Err(code),
                None => Ok(None),
            };
        };
        if dev.dead.load(Ordering::Relaxed) {
            return Ok(None);
        }
        match dev.next_request() {
            Fate::Answer => {}
            Fate::Silent => return Ok(None),
            Fate::Refused => return Err(ExceptionCode::ServerDeviceBusy),
        }
        Ok(Some(match req.request {
            Request::ReadHoldingRegisters(a, n) => {
                Response::ReadHoldingRegisters(dev.read(Function::Holding, a, n)?)
            }
            Request::ReadInputRegisters(a, n) => {
                Response::ReadInputRegisters(dev.read(Function::Input, a, n)?)
            }
            Request::WriteSingleRegister(a, v) => {
                dev.write(a, &[v])?;
                Response::WriteSingleRegister(a, v)
            }
            Request::WriteMultipleRegisters(a, values) => {
                dev.write(a, &values)?;
                Response::WriteMultipleRegisters(a, values.len() as u16)
            }
            Request::ReadDeviceIdentification(code, from) => {
                Response::ReadDeviceIdentification(dev.identify(code, from)?)
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
            .serve(
                &on_connected,
                |e| tracing::debug!(%e, "simulator connection ended"),
            )
            .await
    }

    /// Serves RTU frames over TCP (a serial device server in transparent mode).
    pub async fn serve_rtu_over_tcp(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let server = tokio_modbus::server::rtu_over_tcp::Server::new(listener);
        let on_connected = |stream: tokio::net::TcpStream, _addr| {
            let svc = self.clone();
            async move {
                let _ = stream.set_nodelay(true);
                Ok(Some((svc, stream)))
            }
        };
        server
            .serve(
                &on_connected,
                |e| tracing::debug!(%e, "simulator connection ended"),
            )
            .await
    }

    /// Serves Modbus RTU on a serial port (or a pseudo-terminal) until the task is dropped.
    pub async fn serve_rtu(self, path: std::path::PathBuf) -> std::io::Result<()> {
        let server = tokio_modbus::server::rtu::Server::new_from_path(path, 9600)?;
        server.serve_forever(self).await
    }
}

impl Service for Simulator {
    type Request = SlaveRequest<'static>;
    type Response = Option<Response>;
    type Exception = ExceptionCode;
    type Future = std::future::Ready<Result<Option<Response>, ExceptionCode>>;

    fn call(&self, req: Self::Request) -> Self::Future {
        std::future::ready(self.answer(req))
    }
}
