/** Choices the commissioning panel offers before the installer changes them. */
import type { FoundUnit, ProbeResult } from '../../../api/station/commission'

/** The map to read a unit with first: the scan's best suggestion the gateway has. */
export function defaultMap(unit: FoundUnit, maps: string[]): string | undefined {
  return unit.suggestedMaps.find((m) => maps.includes(m)) ?? maps[0]
}

/** The SN to offer: what the unit said it is, else a serial number among the probed values. */
export function defaultSn(unit: FoundUnit | undefined, probe: ProbeResult | null): string {
  if (unit?.serial) return unit.serial
  const serial = probe?.values.find((v) => v.metric === 'serial_number')?.text
  return serial?.trim() ?? ''
}
