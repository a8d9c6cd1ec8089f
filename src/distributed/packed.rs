//! Histogram bins as a shard sends them: most of a distributed fit's bytes.
//!
//! Exact, not approximate: every bin decodes to the same bits. What is left
//! out can be rebuilt: empty bins (a bitmap says which bins are sent), the
//! hessian sum of a bin when every row's hessian is the same constant `c`
//! (then the shard computed it as `n · c`), and the high zero bytes of the
//! row count (LEB128). A bin of squared error costs 8 bytes of gradient and
//! 1 to 3 of count instead of 20.

use crate::error::{Result, SbError};
use crate::histogram::HistBin;
use serde::{Deserialize, Serialize};

/// Packed bins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackedBins {
    len: u32,
    /// The hessian of every row, when each bin's hessian sum is `n · c`.
    constant_hess: Option<f64>,
    /// Bit `i` set: bin `i` is in `data`.
    present: Vec<u8>,
    data: Vec<u8>,
}

fn is_empty(b: &HistBin) -> bool {
    b.n == 0 && b.g.to_bits() == 0 && b.h.to_bits() == 0
}

/// Pack `bins`; `constant_hess` is the rows' common hessian if they have
/// one (it is only used if it rebuilds every bin's hessian exactly).
pub fn pack(bins: &[HistBin], constant_hess: Option<f64>) -> PackedBins {
    let constant_hess = constant_hess.filter(|&c| {
        bins.iter()
            .all(|b| is_empty(b) || (f64::from(b.n) * c).to_bits() == b.h.to_bits())
    });
    let mut present = vec![0u8; bins.len().div_ceil(8)];
    let mut data = Vec::with_capacity(bins.len() * 10);
    for (i, b) in bins.iter().enumerate() {
        if is_empty(b) {
            continue;
        }
        present[i / 8] |= 1 << (i % 8);
        data.extend_from_slice(&b.g.to_le_bytes());
        if constant_hess.is_none() {
            data.extend_from_slice(&b.h.to_le_bytes());
        }
        let mut n = b.n;
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                data.push(byte);
                break;
            }
            data.push(byte | 0x80);
        }
    }
    PackedBins {
        len: bins.len() as u32,
        constant_hess,
        present,
        data,
    }
}

/// The bins of `packed`, which must hold `len` of them.
pub fn unpack(packed: &PackedBins, len: usize) -> Result<Vec<HistBin>> {
    let bad = || SbError::InvalidInput("malformed histogram bins in a shard's reply".into());
    if packed.len as usize != len || packed.present.len() != len.div_ceil(8) {
        return Err(bad());
    }
    let mut bins = vec![HistBin::default(); len];
    let mut at = 0;
    let data = &packed.data;
    let mut take = |k: usize| -> Result<&[u8]> {
        let bytes = data.get(at..at + k).ok_or_else(bad)?;
        at += k;
        Ok(bytes)
    };
    let f64_of = |b: &[u8]| f64::from_le_bytes(b.try_into().expect("8 bytes"));
    for (i, bin) in bins.iter_mut().enumerate() {
        if packed.present[i / 8] & (1 << (i % 8)) == 0 {
            continue;
        }
        let g = f64_of(take(8)?);
        let h = match packed.constant_hess {
            Some(_) => None,
            None => Some(f64_of(take(8)?)),
        };
        let mut n: u64 = 0;
        for shift in (0..35).step_by(7) {
            let byte = take(1)?[0];
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            if shift == 28 {
                return Err(bad());
            }
        }
        let n = u32::try_from(n).map_err(|_| bad())?;
        let h = h.unwrap_or_else(|| f64::from(n) * packed.constant_hess.expect("constant"));
        *bin = HistBin { g, h, n };
    }
    if at != data.len() {
        return Err(bad());
    }
    Ok(bins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn bins_round_trip_bit_for_bit() {
        let mut rng = Rng::new(1);
        for constant in [None, Some(1.0), Some(0.37)] {
            let bins: Vec<HistBin> = (0..300)
                .map(|i| {
                    let n = match i % 5 {
                        0 => 0,
                        1 => 1,
                        2 => 200,
                        3 => 70000,
                        _ => u32::MAX,
                    };
                    let h = match constant {
                        Some(c) => f64::from(n) * c,
                        None => rng.next_f64(),
                    };
                    // A sparse column's default bin: no rows, a rounding
                    // residue of gradient (it is sent).
                    let g = if n == 0 && i % 10 == 0 {
                        0.0
                    } else {
                        rng.next_f64() - 0.5
                    };
                    HistBin {
                        g,
                        h: if n == 0 { 0.0 } else { h },
                        n,
                    }
                })
                .collect();
            let packed = pack(&bins, constant);
            assert_eq!(packed.constant_hess, constant);
            let back = unpack(&packed, bins.len()).unwrap();
            for (a, b) in bins.iter().zip(&back) {
                assert_eq!(
                    (a.g.to_bits(), a.h.to_bits(), a.n),
                    (b.g.to_bits(), b.h.to_bits(), b.n)
                );
            }
            assert!(unpack(&packed, bins.len() + 1).is_err());
            let mut cut = packed.clone();
            cut.data.pop();
            assert!(unpack(&cut, bins.len()).is_err());
        }
        // A hessian the constant does not rebuild is sent.
        let bins = [HistBin {
            g: 1.0,
            h: 3.5,
            n: 3,
        }];
        let packed = pack(&bins, Some(1.0));
        assert_eq!(packed.constant_hess, None);
        assert_eq!(unpack(&packed, 1).unwrap(), bins);
    }
}
