//! Image captchas: four digits drawn with jitter and noise into a PNG. The answer stays on the
//! server (database, so any replica can check it) until its expiry; each key is good for one try.

use base64::Engine;

use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

const WIDTH: u32 = 120;
const HEIGHT: u32 = 40;
const DIGITS: usize = 4;

/// 5x7 bitmaps of 0-9, one row per byte, the low five bits used.
const FONT: [[u8; 7]; 10] = [
    [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
    [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
    [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
    [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
    [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
    [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
    [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
    [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
    [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
    [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
];

pub const WRONG: Text = Text::new("验证码不正确", "Wrong verification code");
pub const EXPIRED: Text = Text::new(
    "验证码已过期，请刷新后重试",
    "The verification code has expired, please refresh it",
);
pub const MISSING: Text = Text::new("请输入验证码", "Please enter the verification code");

/// A small xorshift generator seeded from the OS: enough to scatter pixels, while the answer
/// itself comes straight from the OS generator.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }
}

fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
    Ok(b)
}

/// One drawn digit: its colour and the pixels it covers.
struct Glyph {
    colour: [u8; 3],
    pixels: Vec<(i64, i64)>,
}

/// Lays the digits out, one per cell, each with its own size, offset, slant and colour.
fn glyphs(answer: &str, rng: &mut Jitter) -> Vec<Glyph> {
    let cell = WIDTH as i64 / DIGITS as i64;
    let mut out = Vec::with_capacity(DIGITS);
    for (n, ch) in answer.chars().enumerate() {
        let Some(d) = ch.to_digit(10) else { continue };
        let scale = 3 + i64::from(rng.below(2));
        let slant = i64::from(rng.below(3)) - 1;
        // The glyph's box (slant shifts the top row by up to 6 px either way) is placed inside its
        // own cell, one pixel clear of the cell's edges, so no jitter pushes it out of the image
        // or into its neighbour.
        let width = 5 * scale + 6 * slant.abs();
        let slack = (cell - 2 - width).max(0);
        let left = n as i64 * cell + 1 + i64::from(rng.below(slack as u32 + 1));
        let ox = left - 6 * slant.min(0);
        let oy = 4 + i64::from(rng.below((HEIGHT as i64 - 7 * scale - 4).max(1) as u32));
        let colour = [
            rng.below(120) as u8,
            rng.below(100) as u8,
            80 + rng.below(120) as u8,
        ];
        let mut pixels = Vec::new();
        for (row, bits) in FONT[d as usize].iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let y = oy + row as i64 * scale + dy;
                        pixels.push((ox + col * scale + dx + slant * (6 - row as i64), y));
                    }
                }
            }
        }
        out.push(Glyph { colour, pixels });
    }
    out
}

/// Draws `answer` (digits) into an RGB PNG.
pub fn render(answer: &str, seed: u64) -> Result<Vec<u8>, ApiError> {
    let mut rng = Jitter(seed | 1);
    let mut pixels = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    let mut put = |x: i64, y: i64, rgb: [u8; 3]| {
        if (0..WIDTH as i64).contains(&x) && (0..HEIGHT as i64).contains(&y) {
            let i = ((y as u32 * WIDTH + x as u32) * 3) as usize;
            pixels[i..i + 3].copy_from_slice(&rgb);
        }
    };
    for y in 0..HEIGHT as i64 {
        for x in 0..WIDTH as i64 {
            let shade = 235 + (x as u8 % 16);
            put(x, y, [shade, 240, 250]);
        }
    }
    // Noise lines behind the digits.
    for _ in 0..5 {
        let (x0, y0) = (rng.below(WIDTH) as f64, rng.below(HEIGHT) as f64);
        let (x1, y1) = (rng.below(WIDTH) as f64, rng.below(HEIGHT) as f64);
        let colour = [
            rng.below(160) as u8 + 60,
            rng.below(160) as u8 + 60,
            rng.below(160) as u8 + 60,
        ];
        for step in 0..=200 {
            let t = f64::from(step) / 200.0;
            put((x0 + (x1 - x0) * t) as i64, (y0 + (y1 - y0) * t) as i64, colour);
        }
    }
    for glyph in glyphs(answer, &mut rng) {
        for (x, y) in glyph.pixels {
            put(x, y, glyph.colour);
        }
    }
    for _ in 0..180 {
        let (x, y) = (rng.below(WIDTH) as i64, rng.below(HEIGHT) as i64);
        put(
            x,
            y,
            [rng.below(255) as u8, rng.below(255) as u8, rng.below(255) as u8],
        );
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| ApiError::Internal(format!("png: {e}")))?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| ApiError::Internal(format!("png: {e}")))?;
    writer
        .finish()
        .map_err(|e| ApiError::Internal(format!("png: {e}")))?;
    Ok(out)
}

pub struct Issued {
    pub key: String,
    pub image: String,
    pub answer: String,
}

/// Makes a captcha, stores its answer and returns the key and the image as a data URL.
pub async fn issue(state: &Core) -> Result<Issued, ApiError> {
    let digits = random_bytes::<DIGITS>()?;
    let answer: String = digits.iter().map(|b| char::from(b'0' + b % 10)).collect();
    let key = hex::encode(random_bytes::<16>()?);
    let seed = u64::from_le_bytes(random_bytes::<8>()?);
    let png = render(&answer, seed)?;
    let now = time::now_ms();
    let mut purge = Sql::default();
    purge.push_bind(
        "DELETE FROM blade_captcha WHERE expire_time < ?",
        [Value::Int(now)],
    );
    purge.execute(state.db.pool()).await?;
    let mut insert = Sql::default();
    insert.push_bind(
        "INSERT INTO blade_captcha (captcha_key, answer, expire_time) VALUES (?, ?, ?)",
        [
            Value::Text(key.clone()),
            Value::Text(answer.clone()),
            Value::Int(now + state.config.auth.captcha_ttl_seconds * 1000),
        ],
    );
    insert.execute(state.db.pool()).await?;
    let image = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    );
    Ok(Issued { key, image, answer })
}

/// Checks an answer and uses the key up, right or wrong.
pub async fn check(state: &Core, key: Option<&str>, code: Option<&str>) -> Result<(), ApiError> {
    let (Some(key), Some(code)) = (
        key.filter(|k| !k.is_empty()),
        code.filter(|c| !c.trim().is_empty()),
    ) else {
        return Err(ApiError::BadRequest(MISSING));
    };
    let mut take = Sql::default();
    take.push_bind(
        "DELETE FROM blade_captcha WHERE captcha_key = ? RETURNING answer, expire_time",
        [Value::Text(key.to_owned())],
    );
    let row: Option<(String, i64)> = take.fetch_optional::<(String, i64), _>(state.db.pool()).await?;
    match row {
        None => Err(ApiError::BadRequest(EXPIRED)),
        Some((_, expires)) if expires < time::now_ms() => Err(ApiError::BadRequest(EXPIRED)),
        Some((answer, _)) if answer.eq_ignore_ascii_case(code.trim()) => Ok(()),
        Some(_) => Err(ApiError::BadRequest(WRONG)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_real_png_that_depends_on_the_answer() {
        let a = render("0123", 42).unwrap();
        assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
        let decoder = png::Decoder::new(std::io::Cursor::new(&a));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (WIDTH, HEIGHT));
        assert_ne!(
            render("9876", 42).unwrap(),
            a,
            "different digits, different picture"
        );
    }

    #[test]
    fn every_glyph_stays_inside_the_image_whatever_the_jitter() {
        // Many seeds cover every scale, offset and slant; a glyph must not touch the border either.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut rng = Jitter(seed | 1);
            let drawn = glyphs("8888", &mut rng);
            assert_eq!(drawn.len(), DIGITS);
            for (n, glyph) in drawn.iter().enumerate() {
                for &(x, y) in &glyph.pixels {
                    assert!(
                        (1..WIDTH as i64 - 1).contains(&x) && (1..HEIGHT as i64 - 1).contains(&y),
                        "seed {seed:#x}: digit {n} has a pixel at ({x}, {y})"
                    );
                }
            }
            // Neighbouring digits do not overlap: each keeps its own cell.
            for pair in drawn.windows(2) {
                let right = pair[0].pixels.iter().map(|p| p.0).max().unwrap_or(0);
                let left = pair[1].pixels.iter().map(|p| p.0).min().unwrap_or(0);
                assert!(right < left, "seed {seed:#x}: digits overlap ({right} >= {left})");
            }
        }
    }
}
