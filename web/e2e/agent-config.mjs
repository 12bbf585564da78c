// The files a real `pv-edge run` needs in a browser test: the configuration the console hands
// out (`GET /api/station/gateway/config`), pointed at the test's own folders and polling every
// second, and the password file.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Writes `dir/pv-edge.toml` (from `configText`) and `dir/mqtt-password`; returns the config path. */
export function writeAgentFiles(dir, configText, password, maps, state = 'state') {
  const config = configText
    .split('\n')
    .map((l) =>
      l.startsWith('data_dir = ')
        ? `data_dir = ${JSON.stringify(join(dir, state))}`
        : l.startsWith('maps_dir = ')
          ? `maps_dir = ${JSON.stringify(maps)}`
          : l.startsWith('password_file = ')
            ? `password_file = ${JSON.stringify(join(dir, 'mqtt-password'))}`
            : l.startsWith('interval_ms = ')
              ? 'interval_ms = 1000'
              : l,
    )
    .join('\n')
  writeFileSync(join(dir, 'pv-edge.toml'), config)
  writeFileSync(join(dir, 'mqtt-password'), password)
  return join(dir, 'pv-edge.toml')
}
