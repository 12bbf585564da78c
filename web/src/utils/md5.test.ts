import { describe, expect, it } from 'vitest'
import { md5 } from './md5'

describe('md5', () => {
  it.each([
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['admin', '21232f297a57a5a743894a0e4a801fc3'],
    ['The quick brown fox jumps over the lazy dog', '9e107d9d372bb6826bd81d3542a419d6'],
    [
      '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
      '57edf4a22be3c955ac49da2e2107b67a',
    ],
    ['光伏', '86e02ad60c16a5de247c12a4d073876d'],
  ])('md5(%j) = %s', (input, hex) => {
    expect(md5(input)).toBe(hex)
  })
})
