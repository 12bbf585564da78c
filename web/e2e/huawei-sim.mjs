// The simulated Huawei SUN2000 inverter the live-data groups drive: its registers, starting the
// project's simulator (`pv-edge simulate`) and writing registers with `pv-edge write`.
import { spawn, spawnSync } from 'node:child_process'

/** huawei-sun2000-ktl registers (`firmware-configs/huawei-sun2000-ktl.toml`). */
export const REG = {
  faultWord1: 32008, // fault_word1..3 at 32008..32010, bitfields
  gridVoltageAb: 32066, // ab, bc, ca, a, b, c: u16, 0.1 V
  acPower: 32080, // i32, 0.001 kW
  gridFrequency: 32085, // u16, 0.01 Hz
  temperature: 32087, // i16, 0.1 °C
  statusCode: 32089, // 0x0200 on-grid
  faultCode: 32090,
}
/** fault_word1 bit 7: code 2032, "Grid loss" / 电网掉电, severity major. */
export const FAULT_BIT = 7
export const FAULT_NAME_ZH = '电网掉电'

/** Starts the simulator with the inverter as unit 1 on `port`. */
export function startHuaweiSimulator(edgeBinary, maps, port) {
  return spawn(
    edgeBinary,
    [
      'simulate',
      '--maps-dir',
      maps,
      '--device',
      '1=huawei-sun2000-ktl',
      '--tcp',
      `127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  )
}

/**
 * A function writing holding registers of unit 1 on the simulator at `port()` (read at each
 * write: some groups learn the port later), retrying until it listens or `timeoutMs` passed.
 */
export function registerWriter(edgeBinary, port, timeoutMs) {
  return async (start, values) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const w = spawnSync(edgeBinary, [
        'write',
        '--tcp',
        `127.0.0.1:${port()}`,
        '--unit',
        '1',
        '--start',
        String(start),
        '--values',
        values.join(','),
      ])
      if (w.status === 0) return
      if (Date.now() >= deadline) throw new Error(`pv-edge write ${start}: ${String(w.stderr)}`)
      await new Promise((r) => setTimeout(r, 300))
    }
  }
}

/** An inverter producing 42.5 kW on a healthy 400 V, 50 Hz grid, without faults. */
export async function writeHealthyInverter(writeRegisters) {
  await writeRegisters(REG.faultWord1, [0, 0, 0])
  await writeRegisters(REG.faultCode, [0])
  await writeRegisters(REG.gridVoltageAb, [4000, 4000, 4000, 2300, 2300, 2300])
  await writeRegisters(REG.acPower, [0, 42500])
  await writeRegisters(REG.gridFrequency, [5000])
  await writeRegisters(REG.temperature, [450])
  await writeRegisters(REG.statusCode, [0x0200])
}
