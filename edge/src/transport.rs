//! Modbus transports: RTU on a serial line, TCP, and RTU framing over a TCP socket (serial
//! device servers). Each bus owns one connection; the scheduler reconnects after any transport
//! error or timeout, because a late answer on a kept connection would be taken for the answer
//! to the next request.

use std::net::SocketAddr;
use std::time::Duration;

use tokio_modbus::client::{Context, rtu, tcp};
use tokio_modbus::slave::Slave;
use tokio_serial::SerialPortBuilderExt;

/// Serial parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parity {
    #[default]
    None,
    Even,
    Odd,
}

/// How a bus is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Modbus RTU on a serial port (RS-485 adapter, or a pseudo-terminal in tests).
    Rtu {
        path: String,
        baud: u32,
        parity: Parity,
        stop_bits: u8,
        data_bits: u8,
    },
    /// Modbus TCP (MBAP framing); devices are told apart by unit id.
    Tcp { address: SocketAddr },
    /// RTU frames (with CRC) tunnelled over TCP, as serial device servers in transparent mode do.
    RtuOverTcp { address: SocketAddr },
}

impl Transport {
    /// Opens the connection, bounded by `timeout`.
    pub async fn connect(&self, timeout: Duration) -> std::io::Result<Context> {
        let open = async {
            match self {
                Transport::Tcp { address } => tcp::connect_slave(*address, Slave(1)).await,
                Transport::RtuOverTcp { address } => {
                    let stream = tokio::net::TcpStream::connect(address).await?;
                    stream.set_nodelay(true)?;
                    Ok(rtu::attach_slave(stream, Slave(1)))
                }
                Transport::Rtu {
                    path,
                    baud,
                    parity,
                    stop_bits,
                    data_bits,
                } => {
                    let port = tokio_serial::new(path, *baud)
                        .parity(match parity {
                            Parity::None => tokio_serial::Parity::None,
                            Parity::Even => tokio_serial::Parity::Even,
                            Parity::Odd => tokio_serial::Parity::Odd,
                        })
                        .stop_bits(if *stop_bits == 2 {
                            tokio_serial::StopBits::Two
                        } else {
                            tokio_serial::StopBits::One
                        })
                        .data_bits(if *data_bits == 7 {
                            tokio_serial::DataBits::Seven
                        } else {
                            tokio_serial::DataBits::Eight
                        })
                        .open_native_async()
                        .map_err(std::io::Error::other)?;
                    Ok(rtu::attach_slave(port, Slave(1)))
                }
            }
        };
        tokio::time::timeout(timeout, open)
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "connect timed out"))?
    }

    /// Short description for logs.
    pub fn describe(&self) -> String {
        match self {
            Transport::Rtu { path, baud, .. } => format!("rtu {path} @{baud}"),
            Transport::Tcp { address } => format!("tcp {address}"),
            Transport::RtuOverTcp { address } => format!("rtu-over-tcp {address}"),
        }
    }
}
