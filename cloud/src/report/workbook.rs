//! Report tables written as `.xlsx` (rust_xlsxwriter): a bold header row of human labels with
//! units in the request's language, numbers as numbers (empty cell for "no data", never 0),
//! frozen header, and a download response with the file name.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use rust_xlsxwriter::{Format, Workbook};

use crate::kernel::ApiError;
use crate::kernel::lang::Lang;

pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A label in the request's language.
pub fn tr(zh: &str, en: &str) -> String {
    match Lang::current() {
        Lang::Zh => zh.to_owned(),
        Lang::En => en.to_owned(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Number(Option<f64>),
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_owned())
    }
}

impl From<Option<f64>> for Cell {
    fn from(v: Option<f64>) -> Self {
        Cell::Number(v)
    }
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Number(Some(v))
    }
}

/// One sheet: a name, a header row and rows of cells.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub name: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(name: String, headers: Vec<String>) -> Table {
        Table {
            name,
            headers,
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }
}

fn xlsx_error(e: rust_xlsxwriter::XlsxError) -> ApiError {
    ApiError::Internal(format!("xlsx: {e}"))
}

/// A sheet name Excel accepts: at most 31 characters, none of `[]:*?/\`.
fn sheet_name(name: &str, index: usize) -> String {
    let clean: String = name
        .chars()
        .filter(|c| !matches!(c, '[' | ']' | ':' | '*' | '?' | '/' | '\\'))
        .take(28)
        .collect();
    if clean.trim().is_empty() {
        format!("Sheet{}", index + 1)
    } else {
        clean
    }
}

pub fn write(tables: &[Table]) -> Result<Vec<u8>, ApiError> {
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();
    for (i, t) in tables.iter().enumerate() {
        let sheet = book.add_worksheet();
        sheet.set_name(sheet_name(&t.name, i)).map_err(xlsx_error)?;
        for (c, h) in t.headers.iter().enumerate() {
            let col = u16::try_from(c).map_err(|_| ApiError::Internal("too many columns".into()))?;
            sheet
                .write_string_with_format(0, col, h, &bold)
                .map_err(xlsx_error)?;
            let width = h
                .chars()
                .map(|ch| if ch.is_ascii() { 1.0 } else { 2.0 })
                .sum::<f64>();
            sheet
                .set_column_width(col, width.clamp(10.0, 40.0))
                .map_err(xlsx_error)?;
        }
        for (r, row) in t.rows.iter().enumerate() {
            let rr = u32::try_from(r + 1).map_err(|_| ApiError::Internal("too many rows".into()))?;
            for (c, cell) in row.iter().enumerate() {
                let col = u16::try_from(c).map_err(|_| ApiError::Internal("too many columns".into()))?;
                match cell {
                    Cell::Text(s) => {
                        sheet.write_string(rr, col, s).map_err(xlsx_error)?;
                    }
                    Cell::Number(Some(v)) if v.is_finite() => {
                        sheet.write_number(rr, col, *v).map_err(xlsx_error)?;
                    }
                    Cell::Number(_) => {}
                }
            }
        }
        sheet.set_freeze_panes(1, 0).map_err(xlsx_error)?;
    }
    book.save_to_buffer().map_err(xlsx_error)
}

/// The workbook as a download named `file`.
pub fn download(tables: &[Table], file: &str) -> Result<Response, ApiError> {
    let bytes = write(tables)?;
    let mut response = bytes.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(XLSX));
    // File names are ASCII (report kind and period); `filename*` is not needed.
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{DataType, Reader, Xlsx};

    #[test]
    fn a_table_reads_back_with_its_labels_numbers_and_empty_cells() {
        let mut t = Table::new("发电量".into(), vec!["时间".into(), "发电量 (kWh)".into()]);
        t.push(vec!["2026-11-01".into(), 12.5.into()]);
        t.push(vec!["2026-11-02".into(), None.into()]);
        let bytes = write(&[t]).unwrap();
        let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
        let range = book.worksheet_range("发电量").unwrap();
        assert_eq!(
            range.get_value((0, 1)).map(|c| c.to_string()),
            Some("发电量 (kWh)".into())
        );
        assert_eq!(range.get_value((1, 1)).and_then(|c| c.as_f64()), Some(12.5));
        assert!(range.get_value((2, 1)).is_none_or(|c| c.is_empty()));
        assert_eq!(sheet_name("a/b:c", 0), "abc");
        assert_eq!(sheet_name("::", 2), "Sheet3");
    }
}
