// The bell across hub replicas, as a user sees it: PostgreSQL, Mosquitto and two hub processes
// (`target/release/pv-cloud`, embedded console, `broker.embedded = false`) on loopback, a
// simulated inverter read by a real edge agent whose gateway is leased to hub A; a headless
// Chromium signed in on hub B sees the alarm of a fault raised in the simulator arrive in its
// bell over B's websocket, without reloading. Run by `scripts/test`'s browser layer after the
// one-hub suite (`npm run e2e:replicas`); prints `ok - ...` / `not ok - ...` like run.mjs.
//
//   E2E_REPLICA_PORTS  first of ten free loopback ports (default: free ports found at start):
//                      +0 PostgreSQL, +1/+2 hubs A/B, +3 Mosquitto, +4 the simulator
//   SCREENSHOT_DIR     where the screenshot goes (default web/e2e/screenshots)
//   CHROMIUM           browser binary (default /usr/bin/chromium)
//   E2E_HUB_BINARY     hub binary (default target/release/pv-cloud; CARGO_TARGET_DIR is honoured)
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { chromium } from 'playwright-core'
import { writeAgentFiles } from './agent-config.mjs'
import {
  FAULT_BIT,
  FAULT_NAME_ZH,
  REG,
  registerWriter,
  startHuaweiSimulator,
  writeHealthyInverter,
} from './huawei-sim.mjs'

const repo = resolve(import.meta.dirname, '..', '..')
const target = process.env.CARGO_TARGET_DIR || join(repo, 'target')
const hubBinary = process.env.E2E_HUB_BINARY || join(target, 'release', 'pv-cloud')
const edgeBinary = join(target, 'debug', 'pv-edge')
const maps = join(repo, 'firmware-configs')
const screenshotDir = resolve(
  process.env.SCREENSHOT_DIR || join(import.meta.dirname, 'screenshots'),
)
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium'
const timeout = 15_000
const started = Date.now()

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })
function assert(condition, message) {
  if (!condition) throw new Error(message)
}
async function poll(probe, limitMs, message) {
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(message())
    await sleep(200)
  }
}

const base = Number(process.env.E2E_REPLICA_PORTS) || 0
const port = async (i) => (base ? base + i : await freePort())
const ports = {
  pg: await port(0),
  a: await port(1),
  b: await port(2),
  mqtt: await port(3),
  sim: await port(4),
}
const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-replicas-'))
const children = []
let pgDir = ''
let passed = 0
let failed = 0
let browser = null
let page = null

async function check(name, fn) {
  try {
    await fn()
    passed++
    console.log(`ok - ${name}`)
  } catch (error) {
    failed++
    console.log(`not ok - ${name}`)
    await page?.screenshot({ path: join(screenshotDir, 'replicas-failed.png') }).catch(() => {})
    const text = error instanceof Error ? error.message : String(error)
    for (const line of text.split('\n').slice(0, 8)) console.log(`  # ${line}`)
    throw error
  }
}

function psql(databaseUrl, sql) {
  const r = spawnSync('psql', [databaseUrl, '-Atqc', sql], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`)
  return r.stdout.trim()
}

function startHub(name, node, httpPort, env) {
  const log = join(dir, `hub-${name}.log`)
  const out = spawn('sh', ['-c', `exec "$0" >"$1" 2>&1`, hubBinary, log], {
    env: {
      ...process.env,
      ...env,
      PV_LISTEN: `127.0.0.1:${httpPort}`,
      PV_DATA_DIR: join(dir, `data-${name}`),
      PV_NODE_ID: String(node),
    },
    stdio: 'ignore',
  })
  children.push(out)
  return { name, base: `http://127.0.0.1:${httpPort}`, log, process: out }
}

async function healthy(hub) {
  await poll(
    async () => {
      if (hub.process.exitCode !== null) return true
      return fetch(`${hub.base}/api/health`)
        .then((r) => r.ok)
        .catch(() => false)
    },
    60_000,
    () => `hub ${hub.name} not healthy:\n${tail(hub.log)}`,
  )
  assert(hub.process.exitCode === null, `hub ${hub.name} exited:\n${tail(hub.log)}`)
}

const tail = (file) => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n')
  } catch {
    return '(no log)'
  }
}

/** Signs the page in on `hubBase` as the platform admin; resolves with the token. */
async function signIn(hubBase) {
  await page.goto(`${hubBase}/login`)
  const captcha = page.waitForResponse((r) => r.url().includes('/api/blade-auth/oauth/captcha'))
  await page.reload()
  const answer = (await (await captcha).json()).answer
  assert(typeof answer === 'string', 'the hub does not expose the captcha answer')
  await page.getByTestId('login-submit').waitFor()
  await page.waitForFunction(
    () => !document.querySelector('[data-testid="login-submit"]')?.hasAttribute('disabled'),
  )
  const tenant = page.getByTestId('login-tenant')
  if (await tenant.isVisible()) await tenant.fill('000000')
  await page.getByTestId('login-account').fill('admin')
  await page.getByTestId('login-password').fill('admin')
  await page.getByTestId('login-captcha').fill(answer)
  await page.getByTestId('login-submit').click()
  await page.waitForURL((url) => url.pathname === '/basicFacts/equipmentMap', { timeout })
  return page.evaluate(() => JSON.parse(localStorage.getItem('pv-token') ?? '{}').content)
}

async function api(hubBase, token, method, path, body) {
  const r = await fetch(`${hubBase}${path}`, {
    method,
    headers: { 'Blade-Auth': `bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
  return path.includes('/gateway/config') ? text : JSON.parse(text)
}

const writeRegisters = registerWriter(edgeBinary, () => ports.sim, timeout)

try {
  mkdirSync(screenshotDir, { recursive: true })
  browser = await chromium.launchPersistentContext(join(dir, 'chromium'), {
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    locale: 'zh-CN',
  })
  page = browser.pages()[0] ?? (await browser.newPage())
  page.setDefaultTimeout(timeout)
  const stamp = Date.now().toString(36)
  const gateway = `gw-rep-${stamp}`
  const stationName = `副本电站${stamp}`
  const sn = `REP${stamp}`.toUpperCase()
  let databaseUrl = ''
  let hubA = null
  let hubB = null
  let aNode = 1

  await check('PostgreSQL, Mosquitto and hub A (external broker) start on loopback', async () => {
    assert(existsSync(hubBinary), `${hubBinary} missing (cargo build --release -p pv-cloud)`)
    assert(existsSync(edgeBinary), `${edgeBinary} missing (cargo build -p pv-edge)`)
    const pg = spawnSync(join(repo, 'scripts', 'pg-start'), {
      env: { ...process.env, PG_TEST_PORT: String(ports.pg) },
      encoding: 'utf8',
    })
    assert(pg.status === 0, `pg-start: ${pg.stderr}`)
    pgDir = /PG_TEST_DIR=(\S+)/.exec(pg.stdout)?.[1] ?? ''
    const admin = /TEST_POSTGRES_URL=(\S+)/.exec(pg.stdout)?.[1] ?? ''
    psql(admin, 'CREATE DATABASE pv_replicas')
    databaseUrl = admin.replace(/\/postgres$/, '/pv_replicas')
    const secret = randomBytes(32).toString('hex')
    const hubPassword = randomBytes(12).toString('hex')
    const files = {
      password: join(dir, 'passwd'),
      acl: join(dir, 'acl'),
      pid: join(dir, 'mosquitto.pid'),
    }
    const env = {
      PV_DATABASE_URL: databaseUrl,
      PV_TOKEN_SECRET: secret,
      PV_STATION__CREDENTIAL_KEY: secret,
      PV_AUTH__EXPOSE_CAPTCHA_ANSWER: 'true',
      PV_BROKER__EMBEDDED: 'false',
      PV_BROKER__URL: `mqtt://pv-hub:${hubPassword}@127.0.0.1:${ports.mqtt}`,
      PV_BROKER__PUBLIC_URL: `mqtt://127.0.0.1:${ports.mqtt}`,
      PV_BROKER__MOSQUITTO_PASSWORD_FILE: files.password,
      PV_BROKER__MOSQUITTO_ACL_FILE: files.acl,
      PV_BROKER__MOSQUITTO_RELOAD_COMMAND: `kill -HUP "$(cat '${files.pid}')"`,
      PV_BROKER__LEASE_SECONDS: '6',
      PV_BROKER__LEASE_HEARTBEAT_SECONDS: '2',
    }
    hubA = startHub('A', aNode, ports.a, env)
    hubB = { env }
    await healthy(hubA)
    // Hub A writes the broker's accounts (its own login first); the broker reads them.
    await poll(
      () => existsSync(files.password),
      15_000,
      () => `no password file:\n${tail(hubA.log)}`,
    )
    const user = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim()
    writeFileSync(
      join(dir, 'mosquitto.conf'),
      `per_listener_settings false\nallow_anonymous false\nlistener ${ports.mqtt} 127.0.0.1\n` +
        `persistence false\npid_file ${files.pid}\npassword_file ${files.password}\n` +
        `acl_file ${files.acl}\nlog_dest stdout\n${user ? `user ${user}\n` : ''}`,
    )
    const broker = spawn(
      'sh',
      [
        '-c',
        `exec mosquitto -c "$0" >"$1" 2>&1`,
        join(dir, 'mosquitto.conf'),
        join(dir, 'mosquitto.log'),
      ],
      { stdio: 'ignore' },
    )
    children.push(broker)
    await poll(
      () => existsSync(files.pid),
      10_000,
      () => `mosquitto: ${tail(join(dir, 'mosquitto.log'))}`,
    )
  })

  await check(
    'a gateway provisioned through hub A is leased to hub A, then hub B joins',
    async () => {
      const token = await signIn(hubA.base)
      await api(hubA.base, token, 'PUT', '/api/alarmRule', {
        ...(await api(hubA.base, token, 'GET', '/api/alarmRule')).data,
        raiseAfterSamples: 1,
      })
      const station = (
        await api(hubA.base, token, 'POST', '/api/station', {
          name: stationName,
          gatewayId: gateway,
          latitude: 30.59,
          longitude: 114.31,
        })
      ).data
      await api(hubA.base, token, 'POST', '/api/inverter', {
        stationId: station,
        name: 'INV-REPLICA',
        sn,
        mapModel: 'huawei-sun2000-ktl',
        unitId: 1,
        stringsCount: 8,
        modbusAddress: `tcp://127.0.0.1:${ports.sim}`,
      })
      const issued = await api(
        hubA.base,
        token,
        'POST',
        `/api/station/gateway/credentials?stationId=${station}`,
        {},
      )
      writeAgentFiles(
        dir,
        await api(hubA.base, token, 'GET', `/api/station/gateway/config?stationId=${station}`),
        issued.data.password,
        maps,
        'edge',
      )
      const owner = await poll(
        () =>
          psql(databaseUrl, `SELECT replica FROM pv_gateway_lease WHERE gateway_id = '${gateway}'`),
        15_000,
        () => `no lease for ${gateway}:\n${tail(hubA.log)}`,
      )
      assert(owner.startsWith(`${aNode}-`), `${gateway} leased to ${owner}, not hub A`)
      hubB = startHub('B', aNode + 1, ports.b, hubB.env)
      await healthy(hubB)
      // A live lease is never taken over: B joins without the gateway.
      await sleep(2500)
      const still = psql(
        databaseUrl,
        `SELECT replica FROM pv_gateway_lease WHERE gateway_id = '${gateway}'`,
      )
      assert(still === owner, `the lease moved to ${still}`)
    },
  )

  await check('the simulated inverter feeds hub A through Mosquitto and the agent', async () => {
    children.push(startHuaweiSimulator(edgeBinary, maps, ports.sim))
    await writeHealthyInverter(writeRegisters)
    children.push(
      spawn(edgeBinary, ['run', '--config', join(dir, 'pv-edge.toml')], { stdio: 'ignore' }),
    )
    await poll(
      () =>
        psql(
          databaseUrl,
          `SELECT COUNT(*) FROM pv_telemetry_latest l JOIN pv_inverter i ON i.id = l.device_id WHERE i.sn = '${sn}'`,
        ) === '1',
      30_000,
      () => `no sample stored:\n${tail(hubA.log)}`,
    )
  })

  await check(
    'a fault raised on hub A rings the bell of the browser on hub B, without a reload',
    async () => {
      await signIn(hubB.base)
      const frames = []
      page.on('websocket', (ws) => {
        ws.on('framereceived', (f) => frames.push({ url: ws.url(), payload: String(f.payload) }))
      })
      let loads = 0
      page.on('load', () => loads++)
      await page.goto(`${hubB.base}/basicFacts/equipmentMap`)
      await page.getByTestId('alarm-bell').waitFor()
      await page.waitForFunction(() => localStorage.getItem('pv-alarmList') !== null, null, {
        timeout,
      })
      const loadsBefore = loads
      const written = Date.now()
      await writeRegisters(REG.faultWord1, [1 << FAULT_BIT, 0, 0])
      const seen = await poll(
        () =>
          page.evaluate((name) => {
            const list = JSON.parse(localStorage.getItem('pv-alarmList') ?? '{}').content ?? []
            return list.find((a) => a.stationName === name) ?? null
          }, stationName),
        45_000,
        () => `no alarm of ${stationName} in B's bell ${Date.now() - written} ms after the write`,
      )
      const took = Date.now() - written
      assert(seen.warningName === FAULT_NAME_ZH, `warningName "${seen.warningName}"`)
      assert(loads === loadsBefore, 'the page reloaded')
      const viaB = frames.find(
        (f) => f.url.startsWith(hubB.base.replace('http', 'ws')) && f.payload.includes(stationName),
      )
      assert(
        viaB,
        `no websocket frame from hub B named the station: ${frames.map((f) => f.url).join(', ')}`,
      )
      const bell = page.getByTestId('alarm-bell')
      assert(Number(await bell.getAttribute('data-count')) > 0, 'bell count 0')
      assert((await bell.getAttribute('data-ringing')) === 'true', 'the bell does not ring')
      // Raised by A's alarm engine: the gateway never left A.
      const owner = psql(
        databaseUrl,
        `SELECT replica FROM pv_gateway_lease WHERE gateway_id = '${gateway}'`,
      )
      assert(owner.startsWith(`${aNode}-`), `${gateway} now leased to ${owner}`)
      await bell.click()
      await sleep(500)
      await page.screenshot({ path: join(screenshotDir, 'replicas-bell-on-b.png') })
      console.log(
        `  # fault write → alarm in B's bell ${took} ms; whole run ${Date.now() - started} ms`,
      )
    },
  )
} catch {
  // Reported by `check`; the remaining checks depend on the failed one.
} finally {
  await browser?.close().catch(() => {})
  for (const c of children.reverse()) {
    if (c.exitCode === null) c.kill('SIGTERM')
  }
  await sleep(500)
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  if (pgDir) spawnSync(join(repo, 'scripts', 'pg-stop'), [pgDir])
  rmSync(dir, { recursive: true, force: true })
  console.log(`${passed} passed, ${failed} failed`)
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0
}
