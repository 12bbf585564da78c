//! LEB128 variable-length integers, signed ones zig-zag mapped first so small negative numbers
//! stay short. Used by the binary uplink encoding (`wire::binary`) and by the cloud's compact
//! telemetry blocks; both read untrusted bytes, so reading never panics and reports a value cut
//! short or longer than 64 bits.

/// Why a varint could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VarintError {
    #[error("varint cut short")]
    Truncated,
    #[error("varint longer than 64 bits")]
    TooLong,
}

/// Appends `v`, seven bits per byte, low bits first.
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zig-zag mapped (0, -1, 1, -2 … → 0, 1, 2, 3 …).
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put_u64(out, zigzag(v));
}

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Reads one unsigned varint from the start of `buf`: the value and the bytes it took.
pub fn read_u64(buf: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut v = 0u64;
    for (i, shift) in (0..64).step_by(7).enumerate() {
        let b = *buf.get(i).ok_or(VarintError::Truncated)?;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok((v, i + 1));
        }
    }
    Err(VarintError::TooLong)
}

/// Reads one zig-zag varint from the start of `buf`: the value and the bytes it took.
pub fn read_i64(buf: &[u8]) -> Result<(i64, usize), VarintError> {
    read_u64(buf).map(|(u, n)| (unzigzag(u), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_u64(&mut out, v);
        out
    }

    fn i(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        put_i64(&mut out, v);
        out
    }

    #[test]
    fn unsigned_values_round_trip_in_the_fewest_bytes() {
        for (v, len) in [
            (0u64, 1usize),
            (1, 1),
            (127, 1),
            (128, 2),
            (300, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::from(u32::MAX), 5),
            (u64::MAX - 1, 10),
            (u64::MAX, 10),
        ] {
            let bytes = u(v);
            assert_eq!(bytes.len(), len, "{v}");
            assert_eq!(read_u64(&bytes), Ok((v, len)), "{v}");
        }
        assert_eq!(u(300), [0xac, 0x02]);
    }

    #[test]
    fn signed_values_round_trip_including_the_extremes() {
        for v in [
            0i64,
            -1,
            1,
            -64,
            63,
            -65,
            64,
            i64::from(i32::MIN),
            i64::MIN,
            i64::MAX,
            i64::MIN + 1,
        ] {
            let bytes = i(v);
            assert_eq!(read_i64(&bytes), Ok((v, bytes.len())), "{v}");
        }
        // Small magnitudes of either sign take one byte.
        assert_eq!(i(-64).len(), 1);
        assert_eq!(i(63).len(), 1);
        assert_eq!(i(i64::MIN).len(), 10);
        assert_eq!(i(i64::MAX).len(), 10);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(unzigzag(zigzag(i64::MIN)), i64::MIN);
    }

    #[test]
    fn a_read_takes_only_its_own_bytes() {
        let mut buf = u(300);
        buf.extend(i(-2));
        let (a, n) = read_u64(&buf).unwrap();
        let (b, m) = read_i64(&buf[n..]).unwrap();
        assert_eq!((a, b, n + m), (300, -2, buf.len()));
    }

    #[test]
    fn cut_short_or_overlong_input_is_an_error() {
        assert_eq!(read_u64(&[]), Err(VarintError::Truncated));
        let max = u(u64::MAX);
        for cut in 0..max.len() {
            assert_eq!(read_u64(&max[..cut]), Err(VarintError::Truncated), "{cut} bytes");
        }
        assert_eq!(read_i64(&[0x80]), Err(VarintError::Truncated));
        // Ten continuation bytes: no 64-bit value is that long.
        assert_eq!(read_u64(&[0xff; 11]), Err(VarintError::TooLong));
    }
}
