//! Several samples in one sled entry.
//!
//! sled pays per key: a replay read, a removal and a flush each touch a tree node per entry,
//! which made the queue's bookkeeping most of the agent's CPU during a backlog replay. A push
//! (one group commit of the store task) is therefore written as groups of up to `GROUP_MAX`
//! samples, each under the sequence number of its first sample:
//!
//! `0x02`, count (varint), then per sample: seq − key (varint), length (varint), the sample in
//! the single-entry layout of `codec`.
//!
//! Entries of older gateways (one sample per key, JSON or compact) are groups of one whose seq
//! is the key, so an upgraded gateway replays them with the same code. A group only ever loses
//! samples (acknowledged or dropped ones are cut out and the rest rewritten under the same key),
//! so every sample of the group under key `k` lies in `k .. next key`.

use super::codec::{self, CodecError};

const GROUP: u8 = 0x02;
/// Samples per entry at most: large enough that the per-key cost vanishes, small enough that
/// rewriting a partly acknowledged group stays cheap (a replay batch is 200 by default).
pub const GROUP_MAX: usize = 256;

/// Lays out `entries` (seq, single-entry bytes) under `key` (≤ every seq).
pub fn encode(key: u64, entries: &[(u64, &[u8])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + entries.iter().map(|(_, b)| b.len() + 4).sum::<usize>());
    out.push(GROUP);
    codec::put_varint(&mut out, entries.len() as u64);
    for (seq, bytes) in entries {
        codec::put_varint(&mut out, seq - key);
        codec::put_varint(&mut out, bytes.len() as u64);
        out.extend_from_slice(bytes);
    }
    out
}

/// Number of samples in an entry, from its header only.
pub fn count(value: &[u8]) -> Result<u64, CodecError> {
    if value.first() == Some(&GROUP) {
        codec::Reader(&value[1..]).varint()
    } else {
        Ok(1)
    }
}

/// The samples of an entry as (seq, single-entry bytes), ascending.
pub fn entries(key: u64, value: &[u8]) -> Result<Vec<(u64, &[u8])>, CodecError> {
    if value.first() != Some(&GROUP) {
        return Ok(vec![(key, value)]);
    }
    let mut r = codec::Reader(&value[1..]);
    let n = r.varint()?;
    let mut out = Vec::with_capacity((n as usize).min(GROUP_MAX * 4));
    for _ in 0..n {
        let seq = key.checked_add(r.varint()?).ok_or(CodecError::Truncated)?;
        let len = usize::try_from(r.varint()?).map_err(|_| CodecError::Truncated)?;
        out.push((seq, r.take(len)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_keeps_its_samples_and_a_single_entry_is_a_group_of_one() {
        let a: &[u8] = b"\x01abc";
        let b: &[u8] = b"{\"seq\":9}";
        let v = encode(7, &[(7, a), (9, b)]);
        assert_eq!(count(&v).unwrap(), 2);
        assert_eq!(entries(7, &v).unwrap(), vec![(7, a), (9, b)]);
        assert_eq!(count(b).unwrap(), 1);
        assert_eq!(entries(9, b).unwrap(), vec![(9, b)]);
        // Damage is an error, never a shorter group.
        assert!(entries(7, &v[..v.len() - 1]).is_err());
    }
}
