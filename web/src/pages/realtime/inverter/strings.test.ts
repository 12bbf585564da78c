import { describe, expect, it } from 'vitest'
import { stringView, trackerOf } from './strings'

describe('per-string view', () => {
  const values = {
    ac_power: 20_000,
    pv2_voltage: 610,
    pv2_current: 9,
    pv1_voltage: 600,
    pv1_current: 10,
    pv1_power: 5990,
    pv10_voltage: 605,
    pv10_current: 11,
    pv3_voltage: 590,
    pv3_current: 6,
    mppt1_voltage: 605,
    mppt1_current: 19,
    mppt2_power: 3500,
    status_code: 1,
    serial_number: 'SN1',
  }

  it('orders inputs by number and fills power from V × I when not sent', () => {
    const view = stringView(values)
    expect(view.strings.map((s) => s.n)).toEqual([1, 2, 3, 10])
    expect(view.strings[0].power).toBe(5990) // sent
    expect(view.strings[1].power).toBe(610 * 9)
    expect(view.mppts).toEqual([
      { n: 1, voltage: 605, current: 19, power: 605 * 19 },
      { n: 2, voltage: null, current: null, power: 3500 },
    ])
  })

  it('compares each string with the mean and flags the weak one', () => {
    const view = stringView(values)
    expect(view.meanCurrent).toBe(9) // (10 + 9 + 6 + 11) / 4
    const byN = Object.fromEntries(view.strings.map((s) => [s.n, s]))
    expect(byN[3].deviation).toBeCloseTo(-33.33, 2)
    expect(byN[3].weak).toBe(true)
    expect(byN[1].deviation).toBeCloseTo(11.11, 2)
    expect(byN[1].weak).toBe(false)
    // σ of [10, 9, 6, 11] = sqrt(3.5); / 9
    expect(view.dispersion).toBeCloseTo((Math.sqrt(3.5) / 9) * 100, 6)
  })

  it('flags a dead string against producing neighbours but judges nothing at night', () => {
    const fuse = stringView({ pv1_current: 8, pv2_current: 8.2, pv3_current: 0 })
    expect(fuse.meanCurrent).toBeCloseTo(8.1, 6)
    expect(fuse.strings[2]).toMatchObject({ n: 3, weak: true })
    expect(fuse.strings[2].deviation).toBeCloseTo(-100, 6)

    const night = stringView({ pv1_current: 0, pv2_current: 0.02 })
    expect(night.meanCurrent).toBeNull()
    expect(night.dispersion).toBeNull()
    expect(night.strings.every((s) => s.deviation === null && !s.weak)).toBe(true)
  })

  it('gives an empty view for a device without string data', () => {
    expect(stringView({ ac_power: 5 })).toEqual({
      strings: [],
      mppts: [],
      meanCurrent: null,
      dispersion: null,
    })
  })
})

describe('strings of an inverter that reports only their currents', () => {
  // Sungrow SG-CX (firmware-configs/sungrow-sg-cx.toml): pv{n}_current for 12 inputs, voltages per MPPT only.
  const sungrow: Record<string, number> = {
    mppt1_voltage: 610,
    mppt1_current: 36,
    mppt2_voltage: 605,
    mppt2_current: 35,
    mppt3_voltage: 598,
    mppt3_current: 34,
  }
  for (let n = 1; n <= 12; n++) sungrow[`pv${n}_current`] = 9

  it('takes each string’s voltage from its tracker and its power from V × I', () => {
    const view = stringView(sungrow)
    expect(view.strings).toHaveLength(12)
    for (const s of view.strings) {
      expect(s.voltage, `PV${s.n}`).not.toBeNull()
      expect(s.power, `PV${s.n}`).not.toBeNull()
    }
    const byN = Object.fromEntries(view.strings.map((s) => [s.n, s]))
    expect(byN[1]).toMatchObject({ voltage: 610, power: 610 * 9, voltageFromMppt: 1 })
    expect(byN[4]).toMatchObject({ voltage: 610, voltageFromMppt: 1 })
    expect(byN[5]).toMatchObject({ voltage: 605, voltageFromMppt: 2 })
    expect(byN[12]).toMatchObject({ voltage: 598, power: 598 * 9, voltageFromMppt: 3 })
  })

  it('keeps a string’s own voltage and says so', () => {
    const view = stringView({ pv1_voltage: 600, pv1_current: 10, mppt1_voltage: 640 })
    expect(view.strings[0]).toMatchObject({ voltage: 600, voltageFromMppt: null })
  })

  it('spreads strings evenly over the trackers', () => {
    expect([1, 2, 3, 4].map((n) => trackerOf(n, 4, 3))).toEqual([1, 2, 3, 3])
    expect([1, 6, 7, 12].map((n) => trackerOf(n, 12, 2))).toEqual([1, 1, 2, 2])
    expect(trackerOf(3, 0, 2)).toBe(1)
  })

  it('marks impossible readings and leaves them out of the mean', () => {
    const view = stringView({
      pv1_voltage: 600,
      pv1_current: 9,
      pv2_voltage: 600,
      pv2_current: 9,
      pv3_voltage: 6553.5, // 0xFFFF × 0.1: an unread register
      pv3_current: 655.35,
    })
    expect(view.strings.map((s) => s.implausible)).toEqual([false, false, true])
    expect(view.meanCurrent).toBe(9)
  })
})
