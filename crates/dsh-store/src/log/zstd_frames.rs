//! A structural scanner for DSH's concatenated Zstandard frames (a port of
//! DSH's `scanZstdFrames`). It finds frame boundaries without decoding, so a
//! torn final frame is told apart from corruption in a complete one. Every
//! size here comes from file bytes: no lossy cast, no unchecked arithmetic.
#![deny(clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]

use crate::error::ZstdCorruption;
use crate::format::limits::MAX_FRAME;
use std::io::{self, Read};

pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// One frame read from a stream.
#[derive(Debug)]
pub enum Frame {
    /// A structurally complete frame (still to be decoded and checksum-verified).
    Complete(Vec<u8>),
    /// The input ended inside this frame: the torn final frame.
    Torn(Vec<u8>),
}

/// Reads frames one at a time, so memory holds one frame, not the whole log.
pub struct FrameReader<R> {
    inner: R,
    offset: u64,
    done: bool,
}

/// Why a frame could not be delimited.
#[derive(Debug)]
pub enum FrameError {
    Io(io::Error),
    Corrupt(ZstdCorruption),
}

impl<R: Read> FrameReader<R> {
    pub fn new(inner: R) -> Self {
        FrameReader {
            inner,
            offset: 0,
            done: false,
        }
    }

    /// The reader, to see how much it holds.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The same frames read on through `f(reader)`: a reader that yields the
    /// same bytes, buffered differently.
    pub fn map_inner<S: Read>(self, f: impl FnOnce(R) -> S) -> FrameReader<S> {
        FrameReader {
            inner: f(self.inner),
            offset: self.offset,
            done: self.done,
        }
    }

    /// Append exactly `n` bytes to `buf`; `Ok(false)` when the input ends first.
    fn take(&mut self, buf: &mut Vec<u8>, n: usize) -> Result<bool, FrameError> {
        let start = buf.len();
        let Some(end) = start.checked_add(n).filter(|end| *end <= MAX_FRAME) else {
            return Err(FrameError::Corrupt(ZstdCorruption::FrameTooLarge {
                at: self.offset,
            }));
        };
        buf.resize(end, 0);
        // `filled` stays within `start..=end` (a read returns at most what
        // its slice holds), so these sums cannot overflow.
        let mut filled = start;
        while filled < end {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => {
                    buf.truncate(filled);
                    return Ok(false);
                }
                Ok(k) => filled = filled.saturating_add(k).min(end),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(FrameError::Io(e)),
            }
        }
        Ok(true)
    }

    /// The next frame, or `None` at a clean end of input.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.done {
            return Ok(None);
        }
        let start = self.offset;
        let mut buf = Vec::new();
        let result = self.scan_one(&mut buf, start);
        self.offset = self.offset.saturating_add(buf.len() as u64);
        match result {
            Ok(true) => Ok(Some(Frame::Complete(buf))),
            Ok(false) => {
                self.done = true;
                if buf.is_empty() {
                    Ok(None)
                } else {
                    Ok(Some(Frame::Torn(buf)))
                }
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    fn scan_one(&mut self, buf: &mut Vec<u8>, start: u64) -> Result<bool, FrameError> {
        if !self.take(buf, 4)? {
            return Ok(false);
        }
        if buf[..4] != ZSTD_MAGIC {
            return Err(FrameError::Corrupt(ZstdCorruption::BadMagic { at: start }));
        }
        if !self.take(buf, 1)? {
            return Ok(false);
        }
        let descriptor = buf[4];
        if descriptor & 0x18 != 0 {
            return Err(FrameError::Corrupt(ZstdCorruption::ReservedBit {
                at: start.saturating_add(4),
            }));
        }
        let content_size_flag = descriptor >> 6;
        let single_segment = descriptor & 0x20 != 0;
        let checksum = descriptor & 0x04 != 0;
        let dictionary_bytes = match descriptor & 3 {
            3 => 4,
            n => n as usize,
        };
        let content_size_bytes = match content_size_flag {
            0 => usize::from(single_segment),
            f => 1 << f,
        };
        // At most 1 + 4 + 8.
        let remaining = usize::from(!single_segment)
            .saturating_add(dictionary_bytes)
            .saturating_add(content_size_bytes);
        if !self.take(buf, remaining)? {
            return Ok(false);
        }
        loop {
            let at = buf.len();
            if !self.take(buf, 3)? {
                return Ok(false);
            }
            let header = u32::from_le_bytes([
                buf[at],
                buf[at.saturating_add(1)],
                buf[at.saturating_add(2)],
                0,
            ]);
            let last = header & 1 != 0;
            let block_type = (header >> 1) & 3;
            let block_size = (header >> 3) as usize;
            if block_type == 3 {
                return Err(FrameError::Corrupt(ZstdCorruption::ReservedBlock {
                    at: start.saturating_add(at as u64),
                }));
            }
            let payload = if block_type == 1 { 1 } else { block_size };
            if !self.take(buf, payload)? {
                return Ok(false);
            }
            if last {
                break;
            }
        }
        if checksum && !self.take(buf, 4)? {
            return Ok(false);
        }
        Ok(true)
    }
}

/// Frames that record a content size up to this many bytes decode in one
/// call on a reused context; unsized ones stream, and nothing decodes past
/// the frame cap.
const BULK_LIMIT: usize = MAX_FRAME;

thread_local! {
    // A decompression context costs far more to create than a small frame
    // costs to decode, and listing decodes one header frame per session.
    static DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
}

/// Decode one complete frame, verifying its checksum.
pub fn decode_frame(frame: &[u8]) -> io::Result<Vec<u8>> {
    if let Some(size) = zstd::bulk::Decompressor::upper_bound(frame).filter(|n| *n <= BULK_LIMIT) {
        let bulk = DCTX.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(zstd::bulk::Decompressor::new()?);
            }
            slot.as_mut().map_or_else(
                || Err(io::Error::other("no zstd context")),
                |d| d.decompress(frame, size),
            )
        });
        return bulk;
    }
    let mut out = Vec::new();
    let decoder = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
    decoder
        .take((MAX_FRAME as u64).saturating_add(1))
        .read_to_end(&mut out)?;
    if out.len() > MAX_FRAME {
        return Err(io::Error::other("frame decodes past the frame cap"));
    }
    Ok(out)
}

/// Hand the text of one complete frame to `f` a piece at a time, in
/// order, holding the decoder's window rather than the frame's text (an
/// 8 MB frame written with a 2 MB window holds 2 MB); false from `f` stops
/// early. The same cap and errors as `decode_frame`.
pub fn each_piece_of_frame(frame: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> io::Result<()> {
    let mut decoder = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
    let mut piece = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    loop {
        let n = match decoder.read(&mut piece) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total = total.saturating_add(n);
        if total > MAX_FRAME {
            return Err(io::Error::other("frame decodes past the frame cap"));
        }
        if !f(piece.get(..n).unwrap_or_default()) {
            return Ok(());
        }
    }
}

/// Frames whose declared text is at most this are decoded whole (one bulk
/// call on a cached context, the cheap road for the many small frames a
/// listing meets); larger ones, or ones that do not declare their size, a
/// piece at a time, so a walk that stops early holds a piece, not a frame.
const WHOLE_LIMIT: u64 = 256 * 1024;

/// Hand the text of one complete frame to `f`, whole or in pieces (see
/// `WHOLE_LIMIT`); false from `f` stops early and is returned.
pub fn each_text_of_frame(frame: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> io::Result<bool> {
    if zstd::bulk::Decompressor::upper_bound(frame).is_some_and(|n| n as u64 <= WHOLE_LIMIT) {
        return decode_frame(frame).map(|plain| f(&plain));
    }
    let mut more = true;
    each_piece_of_frame(frame, &mut |piece| {
        more = f(piece);
        more
    })?;
    Ok(more)
}

/// Recover what plaintext a torn final frame yields before its end.
pub fn decode_torn_prefix(frame: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(decoder) = zstd::stream::read::Decoder::with_buffer(frame) {
        let mut decoder = decoder.single_frame();
        let mut chunk = [0u8; 8192];
        loop {
            match decoder.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(k) => out.extend_from_slice(&chunk[..k]),
            }
            if out.len() > MAX_FRAME {
                out.truncate(MAX_FRAME);
                break;
            }
        }
    }
    out
}

/// Compress `plaintext` as one independent frame with a content checksum,
/// the way DSH writes each durable batch.
pub fn encode_frame(plaintext: &[u8]) -> io::Result<Vec<u8>> {
    let mut compressor = zstd::bulk::Compressor::new(3)?;
    compressor.set_parameter(zstd::stream::raw::CParameter::ChecksumFlag(true))?;
    compressor.compress(plaintext)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_detects_torn_frames() {
        let mut file = encode_frame(b"{\"a\":1}\n").unwrap();
        let second = encode_frame(b"{\"b\":2}\n{\"c\":3}\n").unwrap();
        file.extend_from_slice(&second);
        let mut reader = FrameReader::new(&file[..]);
        let Some(Frame::Complete(f1)) = reader.next_frame().unwrap() else {
            panic!()
        };
        assert_eq!(decode_frame(&f1).unwrap(), b"{\"a\":1}\n");
        let Some(Frame::Complete(f2)) = reader.next_frame().unwrap() else {
            panic!()
        };
        assert_eq!(decode_frame(&f2).unwrap(), b"{\"b\":2}\n{\"c\":3}\n");
        assert!(reader.next_frame().unwrap().is_none());

        let cut = &file[..file.len() - 3];
        let mut reader = FrameReader::new(cut);
        assert!(matches!(
            reader.next_frame().unwrap(),
            Some(Frame::Complete(_))
        ));
        assert!(matches!(reader.next_frame().unwrap(), Some(Frame::Torn(_))));
    }

    #[test]
    fn bad_magic_and_checksum_are_errors() {
        let mut reader = FrameReader::new(&b"{\"x\":1}\n"[..]);
        assert!(matches!(reader.next_frame(), Err(FrameError::Corrupt(_))));
        let mut frame = encode_frame(b"hello\n").unwrap();
        let n = frame.len();
        frame[n - 1] ^= 0xFF;
        assert!(decode_frame(&frame).is_err());
    }
}

/// Joins the lines decoded frames hold: a line may run across frames, so
/// what a frame leaves unfinished is carried into the next. A frame's
/// complete lines are handed over from the frame itself, never copied, so
/// memory holds one decoded frame and one unfinished line.
#[derive(Debug, Default)]
pub struct FrameLines {
    unfinished: Vec<u8>,
}

impl FrameLines {
    /// Hand every line `plain` completes to `f`, in order; false from `f`
    /// stops, and is returned.
    pub fn feed(&mut self, plain: &[u8], f: &mut dyn FnMut(&[u8]) -> bool) -> bool {
        let mut rest = plain;
        if !self.unfinished.is_empty() {
            let Some(p) = memchr::memchr(b'\n', rest) else {
                self.unfinished.extend_from_slice(rest);
                return true;
            };
            self.unfinished.extend_from_slice(&rest[..p]);
            let line = std::mem::take(&mut self.unfinished);
            if !f(&line) {
                return false;
            }
            rest = rest.get(p.saturating_add(1)..).unwrap_or_default();
        }
        while let Some(p) = memchr::memchr(b'\n', rest) {
            if !f(&rest[..p]) {
                return false;
            }
            rest = rest.get(p.saturating_add(1)..).unwrap_or_default();
        }
        self.unfinished.extend_from_slice(rest);
        true
    }
}
