//! OTLP/HTTP export: the spans of `otel` encoded as an
//! `ExportTraceServiceRequest` in protobuf (field numbers of
//! opentelemetry-proto's `collector/trace/v1`, `trace/v1`, `common/v1`,
//! `resource/v1`), POSTed to `<endpoint>/v1/traces` over plain HTTP/1.1.
//! The encoder is the few messages the export writes, not a protobuf
//! library; TLS is left to a local collector. Spans go in batches, a
//! request each, all within one deadline.

use super::otel::{Attr, SCHEMA_URL, Span};
use crate::support::varint::put as varint;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire));
}

fn bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    tag(out, field, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn message(out: &mut Vec<u8>, field: u32, build: impl FnOnce(&mut Vec<u8>)) {
    let mut inner = Vec::new();
    build(&mut inner);
    bytes_field(out, field, &inner);
}

fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
    tag(out, field, 1);
    out.extend_from_slice(&v.to_le_bytes());
}

fn enum_field(out: &mut Vec<u8>, field: u32, v: u64) {
    tag(out, field, 0);
    varint(out, v);
}

/// `KeyValue { key = 1; AnyValue value = 2 }`, `AnyValue { string_value =
/// 1; int_value = 3 }`.
fn key_value(out: &mut Vec<u8>, field: u32, key: &str, value: &Attr) {
    message(out, field, |kv| {
        bytes_field(kv, 1, key.as_bytes());
        message(kv, 2, |v| match value {
            Attr::Str(s) => bytes_field(v, 1, s.as_bytes()),
            Attr::Int(n) => {
                tag(v, 3, 0);
                varint(v, *n as u64);
            }
        });
    });
}

/// The request body.
pub fn encode(spans: &[Span], resource: &[(&'static str, Attr)]) -> Vec<u8> {
    let mut out = Vec::new();
    // ExportTraceServiceRequest.resource_spans = 1
    message(&mut out, 1, |rs| {
        // ResourceSpans.resource = 1 { attributes = 1 }
        message(rs, 1, |r| {
            for (k, v) in resource {
                key_value(r, 1, k, v);
            }
        });
        // ResourceSpans.scope_spans = 2
        message(rs, 2, |ss| {
            // ScopeSpans.scope = 1 { name = 1, version = 2 }
            message(ss, 1, |scope| {
                bytes_field(scope, 1, b"dsh-agents");
                bytes_field(scope, 2, env!("CARGO_PKG_VERSION").as_bytes());
            });
            for s in spans {
                // ScopeSpans.spans = 2
                message(ss, 2, |sp| {
                    bytes_field(sp, 1, &s.trace_id);
                    bytes_field(sp, 2, &s.span_id);
                    if let Some(p) = s.parent {
                        bytes_field(sp, 4, &p);
                    }
                    bytes_field(sp, 5, s.name.as_bytes());
                    enum_field(sp, 6, s.kind as u64);
                    fixed64(sp, 7, s.start_ns);
                    fixed64(sp, 8, s.end_ns);
                    for (k, v) in &s.attributes {
                        key_value(sp, 9, k, v);
                    }
                    for (t, l) in &s.links {
                        // Span.links = 13 { trace_id = 1, span_id = 2 }
                        message(sp, 13, |link| {
                            bytes_field(link, 1, t);
                            bytes_field(link, 2, l);
                        });
                    }
                    if let Some(m) = &s.error {
                        // Span.status = 15 { message = 2, code = 3 (ERROR = 2) }
                        message(sp, 15, |st| {
                            bytes_field(st, 2, m.as_bytes());
                            enum_field(st, 3, 2);
                        });
                    }
                });
            }
        });
        // ResourceSpans.schema_url = 3
        bytes_field(rs, 3, SCHEMA_URL.as_bytes());
    });
    out
}

/// Why an export did not reach the collector.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("\"{0}\" is not an http://HOST:PORT[/PATH] URL (TLS is left to a local collector)")]
    Url(String),
    #[error("cannot connect to {0}: {1}")]
    Connect(String, #[source] std::io::Error),
    #[error(transparent)]
    Io(std::io::Error),
    #[error("the collector answered {0}")]
    Refused(String),
    /// The whole send took longer than its deadline.
    #[error("timed out: the collector did not take the export and answer within {} s (--timeout)", .0.as_secs())]
    TimedOut(Duration),
}

/// Spans a request: a request stays a few MiB at most.
pub const BATCH: usize = 2048;

/// A collector the export is POSTed to, a batch of spans a request (one
/// connection each). Every request — connect, send, answer — ends by one
/// deadline set when the collector is named: a collector that trickles its
/// answer cannot hold the export longer.
pub struct Collector {
    authority: String,
    path: String,
    target: std::net::SocketAddr,
    addr: String,
    until: std::time::Instant,
    deadline: Duration,
}

impl Collector {
    pub fn new(endpoint: &str, deadline: Duration) -> Result<Collector, SendError> {
        let until = std::time::Instant::now() + deadline;
        let bad = || SendError::Url(endpoint.to_string());
        let rest = endpoint.strip_prefix("http://").ok_or_else(bad)?;
        let (authority, path) = match rest.find('/') {
            Some(i) if &rest[i..] != "/" => (&rest[..i], rest[i..].to_string()),
            Some(i) => (&rest[..i], "/v1/traces".to_string()),
            None => (rest, "/v1/traces".to_string()),
        };
        if authority.is_empty() || authority.contains(['@', ' ']) {
            return Err(bad());
        }
        let addr = if authority.contains(':') {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let target = addr
            .to_socket_addrs()
            .map_err(|e| SendError::Connect(addr.clone(), e))?
            .next()
            .ok_or_else(bad)?;
        Ok(Collector {
            authority: authority.to_string(),
            path,
            target,
            addr,
            until,
            deadline,
        })
    }

    /// Where the spans go.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority, self.path)
    }

    fn left(&self) -> Result<Duration, SendError> {
        self.until
            .checked_duration_since(std::time::Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(SendError::TimedOut(self.deadline))
    }

    /// POST one batch of spans; a collector that does not answer 2xx fails it.
    pub fn post(&self, spans: &[Span], resource: &[(&'static str, Attr)]) -> Result<(), SendError> {
        let deadline = self.deadline;
        let timed = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                SendError::TimedOut(deadline)
            }
            _ => SendError::Io(e),
        };
        let mut stream =
            TcpStream::connect_timeout(&self.target, self.left()?).map_err(|e| match e.kind() {
                std::io::ErrorKind::TimedOut => SendError::TimedOut(deadline),
                _ => SendError::Connect(self.addr.clone(), e),
            })?;
        let body = encode(spans, resource);
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\nConnection: close\r\nUser-Agent: dsh-agents/{}\r\n\r\n",
            self.path,
            self.authority,
            body.len(),
            env!("CARGO_PKG_VERSION")
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(&body);
        let mut sent = 0;
        while sent < request.len() {
            stream
                .set_write_timeout(Some(self.left()?))
                .map_err(SendError::Io)?;
            match stream.write(&request[sent..]) {
                Ok(0) => return Err(SendError::Io(std::io::ErrorKind::WriteZero.into())),
                Ok(n) => sent += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(timed(e)),
            }
        }
        // Read a piece at a time, each within what is left of the deadline.
        let mut answer = Vec::new();
        let mut piece = [0u8; 8192];
        while answer.len() < 64 * 1024 {
            stream
                .set_read_timeout(Some(self.left()?))
                .map_err(SendError::Io)?;
            match stream.read(&mut piece) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&piece[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(timed(e)),
            }
        }
        let text = String::from_utf8_lossy(&answer);
        let status = text.lines().next().unwrap_or("").trim().to_string();
        let code = status.split(' ').nth(1).unwrap_or("");
        if !code.starts_with('2') {
            return Err(SendError::Refused(if status.is_empty() {
                "nothing".to_string()
            } else {
                status
            }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_failure_keeps_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        let e = SendError::Connect("127.0.0.1:4318".into(), io);
        let cause = std::error::Error::source(&e).expect("the I/O error underneath");
        assert_eq!(cause.to_string(), "reset");
        assert!(std::error::Error::source(&SendError::Refused("500".into())).is_none());
    }

    #[test]
    fn fields() {
        let mut out = Vec::new();
        bytes_field(&mut out, 5, b"ab");
        assert_eq!(out, [0x2a, 2, b'a', b'b']);
        let mut out = Vec::new();
        fixed64(&mut out, 7, 1);
        assert_eq!(out, [0x39, 1, 0, 0, 0, 0, 0, 0, 0]);
        // A negative int64 is ten bytes of two's complement.
        let mut out = Vec::new();
        key_value(&mut out, 9, "k", &Attr::Int(-1));
        assert_eq!(out.len(), 2 + 3 + 2 + 11);
    }
}
