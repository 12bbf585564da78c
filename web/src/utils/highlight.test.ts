import { describe, expect, it } from 'vitest'
import { highlightHtml } from './highlight'

/** The text of the spans of one highlight.js class. */
const spans = (html: string, kind: string): string[] => {
  const box = document.createElement('div')
  box.innerHTML = html
  return Array.from(box.querySelectorAll(`.hljs-${kind}`), (el) => el.textContent ?? '')
}

const text = (html: string) => {
  const box = document.createElement('div')
  box.innerHTML = html
  return box.textContent
}

describe('the preview highlighter', () => {
  const rust = [
    '//! Spare parts.',
    'use crate::system::entities::{Col, EntityDef, Ty};',
    'pub static ENTITY: EntityDef = EntityDef {',
    '    base: "/api/blade-business/spare-part",',
    '    tenant_scoped: true,',
    '};',
  ].join('\n')

  it('gives back the source exactly, escaped, in every language the generator writes', () => {
    const samples: [string, string][] = [
      [rust, 'rust'],
      ["export const a = { zh: '名称', en: 'Name' } // c", 'typescript'],
      ['<CrudPage config={sparePartConfig} />', 'tsx'],
      ['CREATE TABLE biz_spare_part (part_name VARCHAR(64) NOT NULL); -- note', 'sql'],
      ['code = "biz_spare_part" # seed\nsort = 1\nbuttons = ["add"]', 'toml'],
      ['whatever <b>bold</b> & more', 'markdown'],
    ]
    for (const [code, language] of samples) {
      const html = highlightHtml(code, language)
      expect(text(html)).toBe(code)
      // Markup in the source stays text: no element but highlight.js's spans.
      const box = document.createElement('div')
      box.innerHTML = html
      expect(Array.from(box.querySelectorAll('*')).every((el) => el.tagName === 'SPAN')).toBe(true)
    }
  })

  it('marks comments, keywords, strings and literals of the generated Rust', () => {
    const html = highlightHtml(rust, 'rust')
    expect(spans(html, 'comment')).toEqual(['//! Spare parts.'])
    expect(spans(html, 'keyword')).toEqual(expect.arrayContaining(['use', 'pub', 'static']))
    expect(spans(html, 'string')).toEqual(['"/api/blade-business/spare-part"'])
    expect(spans(html, 'literal')).toEqual(['true'])
  })

  it('marks SQL keywords and types, TypeScript strings and TOML keys', () => {
    const sql = highlightHtml('CREATE TABLE t (id BIGINT NOT NULL);', 'sql')
    expect(spans(sql, 'keyword')).toEqual(['CREATE TABLE', 'NOT NULL'])
    expect(spans(sql, 'type')).toEqual(['BIGINT'])
    const ts = highlightHtml("label: { zh: '备件名称', en: 'Part name' },", 'typescript')
    expect(spans(ts, 'string')).toEqual(["'备件名称'", "'Part name'"])
    const toml = highlightHtml('code = "biz_spare_part"\nsort = 1', 'toml')
    expect(spans(toml, 'attr')).toEqual(['code', 'sort'])
    expect(spans(toml, 'string')).toEqual(['"biz_spare_part"'])
  })

  it('leaves an unknown language plain', () => {
    expect(highlightHtml('a < b', 'cobol')).toBe('a &lt; b')
  })
})
