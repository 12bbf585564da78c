//! Coalescing of a device's registers into as few block reads as its limits allow.
//!
//! On a half-duplex RS-485 line every request costs a turnaround of tens of milliseconds, so
//! reading 60 registers in one request instead of 30 requests is what makes a bus of many
//! devices fit its poll interval.

use pv_shared::regmap::Function;

/// Registers `start .. start + words` of one register space that must be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span {
    pub function: Function,
    pub start: u16,
    pub words: u16,
}

/// One read request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub function: Function,
    pub start: u16,
    pub count: u16,
}

impl Block {
    fn end(&self) -> u32 {
        u32::from(self.start) + u32::from(self.count)
    }
}

/// Merges spans into blocks of at most `max_block` registers, bridging at most `max_gap`
/// unmapped registers between neighbours. Spans must each fit in `max_block` (the map parser
/// guarantees it).
pub fn plan(spans: &[Span], max_block: u16, max_gap: u16) -> Vec<Block> {
    let mut spans = spans.to_vec();
    spans.sort();
    let mut blocks: Vec<Block> = Vec::new();
    for s in spans {
        let end = u32::from(s.start) + u32::from(s.words);
        if let Some(last) = blocks.last_mut()
            && last.function == s.function
            && u32::from(s.start) <= last.end() + u32::from(max_gap)
        {
            let merged_end = end.max(last.end());
            if merged_end - u32::from(last.start) <= u32::from(max_block) {
                last.count = (merged_end - u32::from(last.start)) as u16;
                continue;
            }
        }
        blocks.push(Block {
            function: s.function,
            start: s.start,
            count: s.words,
        });
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use Function::{Holding as H, Input as I};

    fn span(function: Function, start: u16, words: u16) -> Span {
        Span {
            function,
            start,
            words,
        }
    }

    #[test]
    fn contiguous_points_merge_up_to_the_block_limit() {
        let spans: Vec<Span> = (0..10).map(|i| span(H, 100 + i * 2, 2)).collect();
        let b = plan(&spans, 8, 0);
        assert_eq!(
            b,
            vec![
                Block {
                    function: H,
                    start: 100,
                    count: 8
                },
                Block {
                    function: H,
                    start: 108,
                    count: 8
                },
                Block {
                    function: H,
                    start: 116,
                    count: 4
                },
            ]
        );
    }

    #[test]
    fn gaps_and_function_codes_split_blocks() {
        let spans = [
            span(H, 0, 1),
            span(H, 2, 1),
            span(I, 3, 1),
            span(H, 10, 1),
            span(H, 1, 1),
        ];
        assert_eq!(
            plan(&spans, 125, 0),
            vec![
                Block {
                    function: H,
                    start: 0,
                    count: 3
                },
                Block {
                    function: H,
                    start: 10,
                    count: 1
                },
                Block {
                    function: I,
                    start: 3,
                    count: 1
                },
            ]
        );
        // With a tolerated gap the two holding runs become one read.
        assert_eq!(
            plan(&spans, 125, 7)[0],
            Block {
                function: H,
                start: 0,
                count: 11
            }
        );
    }

    #[test]
    fn a_shared_scale_factor_inside_a_block_is_not_read_twice() {
        let spans = [span(H, 5, 1), span(H, 5, 1), span(H, 4, 2)];
        assert_eq!(
            plan(&spans, 125, 0),
            vec![Block {
                function: H,
                start: 4,
                count: 2
            }]
        );
    }
}
