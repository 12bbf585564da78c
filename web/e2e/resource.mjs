/**
 * Object storage and attachments in the browser (issue 28): the admin adds an S3-compatible store
 * on /resource/oss (a real moto S3 server this file starts on a free loopback port, path-style,
 * its bucket made over moto's HTTP API) and enables it; a station image (the station form) and a
 * repair photo (a hand-made repair order) then land in that bucket; /resource/attach lists both
 * with the store's code; removing the station image there deletes its object from moto (listed
 * from moto itself) while the repair photo stays. Finally the S3 configuration is removed on
 * /resource/oss (and a store enabled before the run enabled again), so the tenant's uploads go
 * where they went before (the local disk on a fresh hub) for the groups after this one and a
 * rerun; this run's remaining attachment is removed before moto stops.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..', '..')
const venv = process.env.PV_TEST_VENV || join(repo, 'target', 'test-venv')
const motoBinary = join(venv, 'bin', 'moto_server')

// A 1×1 PNG (put-image checks the content is an image).
const pngBytes = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
const pngMd5 = createHash('md5').update(pngBytes).digest('hex')

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

/** The stored name of an upload (its key in the bucket), from its link. */
const keyOf = (link) =>
  decodeURIComponent(link.split('/oss/endpoint/file/')[1]?.split('?')[0] ?? '')

export async function resourceChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, signIn, storedToken, openMenu } = t
  const { nextCall, toast, crudRows, crudDialog } = t
  const stamp = Date.now().toString(36)
  const bucket = `pv-e2e-${stamp}`
  const ossCode = `s3-${stamp}`
  const secret = `moto-secret-${stamp}`
  const stationName = `附件电站${stamp}`
  const names = { image: `res${stamp}-roof.png`, photo: `res${stamp}-repair.png` }
  const dir = mkdtempSync(join(tmpdir(), 'pv-e2e-resource-'))
  for (const name of Object.values(names)) writeFileSync(join(dir, name), pngBytes)
  const moto = { child: null, url: '' }
  const live = {
    ossId: '',
    enabled: false,
    enabledBefore: [],
    image: '',
    photo: '',
  }

  /** A JSON call as the console's admin; rejects unless HTTP and body 200. */
  const api = async (method, path) => {
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${await storedToken()}` },
    })
    const text = await r.text()
    const json = r.ok ? JSON.parse(text) : null
    if (json?.code !== 200)
      throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`)
    return json
  }
  /** The bucket's objects as moto lists them: key → MD5 of the bytes (a single-part ETag). */
  const objects = async () => {
    const r = await fetch(`${moto.url}/${bucket}?list-type=2`)
    const xml = await r.text()
    assert(r.ok, `moto listing: HTTP ${r.status} ${xml.slice(0, 200)}`)
    const found = new Map()
    for (const [, entry] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = entry.match(/<Key>([^<]*)<\/Key>/)?.[1] ?? ''
      const etag = entry.match(/<ETag>([^<]*)<\/ETag>/)?.[1] ?? ''
      found.set(key, etag.replace(/&#34;|&quot;|"/g, ''))
    }
    return found
  }
  /** The status and size of a link read in the page, as the console reads it. */
  const read = (link) =>
    page.evaluate(async (url) => {
      // Past the browser's cache: the file answers are cached for a day.
      const res = await fetch(url, { cache: 'no-store' })
      return { status: res.status, size: (await res.arrayBuffer()).byteLength }
    }, link)
  /** Picks `label` in the antd select `testId`, typing to filter first. */
  async function pick(testId, label) {
    const select = page.getByTestId(testId)
    const option = page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: label })
      .first()
    for (let attempt = 1; ; attempt++) {
      if (!(await option.isVisible())) await select.click()
      const input = select.locator('input').first()
      if ((await input.count()) > 0 && (await input.isEditable().catch(() => false))) {
        await input.fill(label).catch(() => {})
      }
      try {
        await option.click({ timeout: 4000 })
        await select.getByText(label).first().waitFor({ timeout: 3000 })
        return
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
  }
  /**
   * Clicks the confirm's `testId` button and resolves with the call it makes to `path`. On a
   * loaded machine a click during the confirm's opening animation can be lost: clicked again
   * while the button is still up.
   */
  async function confirmCall(testId, path) {
    const call = nextCall(path)
    const button = page.getByTestId(testId)
    await button.click()
    for (let attempt = 1; attempt < 3; attempt++) {
      const answered = await Promise.race([call.then(() => true), sleep(4000).then(() => false)])
      if (answered) break
      if (await button.isVisible()) await button.click().catch(() => {})
    }
    return call
  }
  const ossRow = () => crudRows().filter({ hasText: ossCode })

  try {
    await check(
      'resource: an S3-compatible store (moto, path-style) is added on /resource/oss and enabled',
      async () => {
        assert(existsSync(motoBinary), `${motoBinary} missing (scripts/setup test)`)
        const port = await freePort()
        moto.url = `http://127.0.0.1:${port}`
        moto.child = spawn(motoBinary, ['-H', '127.0.0.1', '-p', String(port)], {
          stdio: 'ignore',
        })
        await signIn('admin', 'admin')
        live.enabledBefore = (
          await api('GET', '/api/blade-resource/oss/list?current=1&size=100&status=2')
        ).data.records.map((r) => String(r.id))
        // moto takes a second or two to start; it accepts unsigned bucket creation.
        const end = Date.now() + 20_000
        for (;;) {
          const made = await fetch(`${moto.url}/${bucket}`, { method: 'PUT' }).catch(() => null)
          if (made?.ok) break
          assert(Date.now() < end, `moto did not create ${bucket}: HTTP ${made?.status}`)
          await sleep(150)
        }

        const list = nextCall('/blade-resource/oss/list').catch(() => null)
        await openMenu(['系统管理', '资源管理'], '对象存储', '/resource/oss')
        await page.locator('[data-testid="crud-page"][data-menu-code="oss"]').waitFor()
        // A page kept open in its tab from before answers from its cache: no call to wait for.
        await Promise.race([list, page.waitForTimeout(3_000)])
        await page.getByTestId('crud-add').click()
        await crudDialog().waitFor()
        // A new configuration starts as S3-compatible, path-style (what MinIO and moto need).
        await crudDialog().getByText('S3 兼容存储', { exact: true }).waitFor()
        await crudDialog().getByText('路径方式（MinIO 等）', { exact: true }).waitFor()
        await page.getByTestId('field-ossCode').fill(ossCode)
        await page.getByTestId('field-endpoint').fill(moto.url)
        await page.getByTestId('field-bucketName').fill(bucket)
        await page.getByTestId('field-region').fill('us-east-1')
        await page.getByTestId('field-accessKey').fill('e2e-access')
        await page.getByTestId('field-secretKey').fill(secret)
        const submit = nextCall('/blade-resource/oss/submit')
        const listed = nextCall('/blade-resource/oss/list')
        await crudDialog().getByTestId('crud-submit').click()
        const response = await submit
        const body = await response.json()
        assert(body.code === 200, `submit: ${JSON.stringify(body)}`)
        const sent = JSON.parse(response.request().postData() ?? '{}')
        assert(
          sent.category === 2 && sent.pathStyle === 1 && sent.endpoint === moto.url,
          `sent ${JSON.stringify({ ...sent, secretKey: '…' })}`,
        )
        await toast('新增成功').waitFor()
        await crudDialog().waitFor({ state: 'hidden' })
        const after = await (await listed).text()
        assert(!after.includes(secret), 'the list answered the secret key')
        const mine = JSON.parse(after).data.records.find((r) => r.ossCode === ossCode)
        assert(mine, `not listed: ${after.slice(0, 300)}`)
        live.ossId = String(mine.id)
        await ossRow().getByText('未启用', { exact: true }).waitFor()

        await ossRow().getByTestId('crud-row-enable').click()
        await page
          .locator('.ant-modal-confirm-title')
          .getByText('启用后，其他配置将停用。确定启用？')
          .waitFor()
        const enable = confirmCall('crud-confirm-ok', '/blade-resource/oss/enable')
        const enabled = await (await enable).json()
        assert(enabled.code === 200, `enable: ${JSON.stringify(enabled)}`)
        const id = new URL((await enable).url()).searchParams.get('id')
        assert(id === live.ossId, `enabled ${id}, not ${live.ossId}`)
        await ossRow().getByText('已启用', { exact: true }).waitFor()
        const on = await api('GET', '/api/blade-resource/oss/list?current=1&size=100&status=2')
        const codes = on.data.records.map((r) => r.ossCode)
        assert(codes.join() === ossCode, `enabled stores: ${codes.join()}`)
        live.enabled = true
      },
    )

    await check('resource: a station image from the station form lands in the bucket', async () => {
      assert(live.enabled, 'no enabled store')
      await page.goto(`${baseUrl}/station/station`)
      await page.getByTestId('station-page').waitFor()
      await page.getByTestId('crud-add').click()
      const dialog = page.locator('.station-dialog .ant-modal')
      await dialog.waitFor()
      await page.getByTestId('field-name').fill(stationName)
      const upload = nextCall('/blade-resource/oss/endpoint/put-file')
      await page.getByTestId('station-images-input').setInputFiles(join(dir, names.image))
      const uploaded = await (await upload).json()
      assert(uploaded.code === 200, `put-file: ${JSON.stringify(uploaded).slice(0, 300)}`)
      live.image = uploaded.data.link
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="station-image"]').length === 1,
      )
      const create = nextCall('/station')
      await dialog.getByTestId('crud-submit').click()
      const created = await create
      const body = await created.json()
      assert(body.code === 200, `POST /api/station: ${JSON.stringify(body)}`)
      const sent = JSON.parse(created.request().postData() ?? '{}')
      assert(
        sent.images?.length === 1 && sent.images[0] === uploaded.data.attachId,
        `images sent: ${JSON.stringify(sent.images)}`,
      )
      await toast('新增成功').waitFor()
      const inBucket = await objects()
      assert(
        inBucket.get(keyOf(live.image)) === pngMd5,
        `bucket holds ${JSON.stringify([...inBucket])}, not ${keyOf(live.image)}`,
      )
    })

    await check(
      'resource: a repair photo from a new repair order lands in the bucket',
      async () => {
        await page.goto(`${baseUrl}/intelligentOperation/repair`)
        await page.getByTestId('repair-page').waitFor()
        await page.getByTestId('repair-new').click()
        await page.getByTestId('repair-new-ok').waitFor()
        await pick('repair-new-station', stationName)
        await page.getByTestId('repair-new-title').fill(`组件破损 ${stamp}`)
        await page.getByTestId('repair-new-description').fill(`组件破损，见照片 ${stamp}`)
        const upload = nextCall('/blade-resource/oss/endpoint/put-image')
        await page.getByTestId('repair-new-photos-input').setInputFiles(join(dir, names.photo))
        const uploaded = await (await upload).json()
        assert(uploaded.code === 200, `put-image: ${JSON.stringify(uploaded).slice(0, 300)}`)
        live.photo = uploaded.data.link
        await page.locator('[data-testid="repair-new-photos"][data-count="1"]').waitFor()
        const create = page.waitForResponse(
          (r) => new URL(r.url()).pathname === '/api/repair' && r.request().method() === 'POST',
        )
        await page.getByTestId('repair-new-ok').click()
        const body = await (await create).json()
        assert(body.code === 200, `POST /api/repair: ${JSON.stringify(body).slice(0, 300)}`)
        assert(
          JSON.stringify(body.data).includes(keyOf(live.photo)),
          `the order has no photo: ${JSON.stringify(body.data).slice(0, 300)}`,
        )
        const inBucket = await objects()
        assert(
          inBucket.get(keyOf(live.photo)) === pngMd5,
          `bucket holds ${JSON.stringify([...inBucket])}, not ${keyOf(live.photo)}`,
        )
      },
    )

    await check(
      'resource: 附件管理 lists both in the S3 store; removing the image deletes its object only',
      async () => {
        await page.goto(`${baseUrl}/resource/attach`)
        await page.locator('[data-testid="crud-page"][data-menu-code="attach"]').waitFor()
        await page.getByTestId('search-originalName').fill(`res${stamp}`)
        const list = nextCall('/blade-resource/attach/list', `originalName=res${stamp}`)
        await page.getByTestId('crud-search').click()
        const rows = (await (await list).json()).data?.records ?? []
        const row = (name) => rows.find((r) => r.originalName === name)
        assert(
          rows.length === 2 && row(names.image) && row(names.photo),
          `listed: ${JSON.stringify(rows.map((r) => r.originalName))}`,
        )
        for (const name of Object.values(names)) {
          await crudRows().filter({ hasText: name }).filter({ hasText: ossCode }).waitFor()
        }
        await page.screenshot({ path: join(screenshotDir, 'resource-attach.png') })
        assert(
          keyOf(live.image) === row(names.image).name &&
            keyOf(live.photo) === row(names.photo).name,
          `rows name ${row(names.image).name} and ${row(names.photo).name}`,
        )
        const before = await read(live.image)
        assert(
          before.status === 200 && before.size === pngBytes.length,
          `image read ${JSON.stringify(before)}`,
        )

        await crudRows().filter({ hasText: names.image }).getByTestId('crud-row-delete').click()
        await page.locator('.ant-modal-confirm-title').getByText('确定将选择数据删除?').waitFor()
        const remove = confirmCall('crud-delete-ok', '/blade-resource/attach/remove')
        const removed = await (await remove).json()
        assert(removed.code === 200, `remove: ${JSON.stringify(removed)}`)
        await toast('删除成功').waitFor()
        await crudRows().filter({ hasText: names.image }).waitFor({ state: 'detached' })
        await crudRows().filter({ hasText: names.photo }).waitFor()

        const inBucket = await objects()
        assert(!inBucket.has(keyOf(live.image)), `the image is still in the bucket`)
        assert(inBucket.get(keyOf(live.photo)) === pngMd5, `the photo left the bucket too`)
        const gone = await read(live.image)
        assert(gone.status === 404, `the removed image's link answered HTTP ${gone.status}`)
        const kept = await read(live.photo)
        assert(
          kept.status === 200 && kept.size === pngBytes.length,
          `photo read ${JSON.stringify(kept)}`,
        )
      },
    )

    await check(
      'resource: removing the S3 store on /resource/oss puts back the store enabled before',
      async () => {
        assert(live.ossId, 'no store of this run')
        await page.goto(`${baseUrl}/resource/oss`)
        await page.locator('[data-testid="crud-page"][data-menu-code="oss"]').waitFor()
        await ossRow().getByTestId('crud-row-delete').click()
        await page.locator('.ant-modal-confirm-title').getByText('确定将选择数据删除?').waitFor()
        const remove = confirmCall('crud-delete-ok', '/blade-resource/oss/remove')
        assert((await (await remove).json()).code === 200, 'remove refused')
        await toast('删除成功').waitFor()
        await ossRow().waitFor({ state: 'detached' })
        live.ossId = ''
        // A store enabled before this run is enabled again.
        for (const id of live.enabledBefore)
          await api('POST', `/api/blade-resource/oss/enable?id=${id}`)
        const on = await api('GET', '/api/blade-resource/oss/list?current=1&size=100&status=2')
        const ids = on.data.records.map((r) => String(r.id))
        assert(ids.join() === live.enabledBefore.join(), `enabled now: ${ids.join()}`)
      },
    )
  } finally {
    // Nothing of this run stays behind pointing at a server that stops (a removed
    // configuration still reads and deletes its files).
    const left = await api(
      'GET',
      `/api/blade-resource/attach/list?current=1&size=10&originalName=res${stamp}`,
    ).catch(() => null)
    const ids = (left?.data.records ?? []).map((r) => r.id).join(',')
    if (ids) await api('POST', `/api/blade-resource/attach/remove?ids=${ids}`).catch(() => {})
    // A failed check must not leave this run's store enabled for the groups after it.
    if (live.ossId) {
      await api('POST', `/api/blade-resource/oss/remove?ids=${live.ossId}`).catch(() => {})
      for (const id of live.enabledBefore)
        await api('POST', `/api/blade-resource/oss/enable?id=${id}`).catch(() => {})
    }
    if (moto.child && moto.child.exitCode === null) {
      const exited = new Promise((ok) => moto.child.once('exit', ok))
      moto.child.kill('SIGTERM')
      await Promise.race([exited, sleep(3000)])
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
