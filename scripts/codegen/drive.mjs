// The code generator end to end, over HTTP (used by scripts/check-codegen):
//   node drive.mjs generate <baseUrl> <zipPath>  — data source → model → field settings → code
//       row → gen-code, the zip written to <zipPath>;
//   node drive.mjs crud <baseUrl>                — the generated spare-part CRUD on a hub built
//       from the copy: submit, list, detail, remove, checks and tenant scoping.
import { writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'

const [, , mode, base, zipPath] = process.argv
const md5 = (s) => createHash('md5').update(s).digest('hex')
const fail = (msg) => {
  console.error(`not ok - ${msg}`)
  process.exit(1)
}
const assert = (cond, msg) => cond || fail(msg)

async function tokenOf(tenant, account, password) {
  const q = new URLSearchParams({
    tenantId: tenant,
    username: account,
    password: md5(password),
    grant_type: 'password',
    scope: 'all',
  })
  const r = await fetch(`${base}/api/blade-auth/oauth/token?${q}`, {
    method: 'POST',
    headers: {
      Authorization: 'Basic c2FiZXI6c2FiZXJfc2VjcmV0',
      'Tenant-Id': tenant,
    },
  })
  const body = await r.json()
  assert(body.access_token, `sign in ${tenant}/${account}: ${JSON.stringify(body).slice(0, 200)}`)
  return body.access_token
}

function client(token) {
  return async (method, path, body, expect = 200) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: {
        'Blade-Auth': `bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (r.headers.get('content-type') === 'application/zip')
      return Buffer.from(await r.arrayBuffer())
    const json = await r.json().catch(() => null)
    assert(
      r.status === expect,
      `${method} ${path}: HTTP ${r.status} (wanted ${expect}) ${JSON.stringify(json).slice(0, 300)}`,
    )
    return json
  }
}

if (mode === 'generate') {
  const call = client(await tokenOf('000000', 'admin', 'admin'))
  const ds = (
    await call('POST', '/api/blade-develop/datasource/submit', {
      name: '备件库',
      category: 1,
      url: 'spare.db',
    })
  ).data
  const tested = (
    await call('POST', '/api/blade-develop/datasource/test', {
      id: ds,
      category: 1,
      url: 'spare.db',
    })
  ).data
  assert(tested.tables === 1, `test: ${JSON.stringify(tested)}`)
  const model = (
    await call('POST', '/api/blade-develop/model/submit', {
      datasourceId: ds,
      modelName: '备品备件',
      modelCode: 'spare_part',
      modelTable: 'spare_part',
    })
  ).data
  const protos = (await call('GET', `/api/blade-develop/model/model-prototype?modelId=${model}`))
    .data
  const labels = {
    part_name: ['备件名称', 'part name', { search: true }],
    part_no: ['备件编号', 'part number', { search: true, maxLength: 32 }],
    quantity: ['库存数量', 'quantity in stock', { minValue: 0, maxValue: 100000 }],
    unit_price: ['单价', 'unit price', { minValue: 0 }],
    install_date: ['入库日期', 'date received', {}],
    remark: ['备注', 'remark', { list: false }],
  }
  for (const p of protos) {
    const [zh, en, extra] = labels[p.jdbcName] ?? fail(`unexpected column ${p.jdbcName}`)
    Object.assign(p, { labelZh: zh, labelEn: en }, extra)
  }
  await call('POST', '/api/blade-develop/model-prototype/submit-list', protos)
  const code = (
    await call('POST', '/api/blade-develop/code/submit', {
      modelId: model,
      codeName: '备品备件',
      codeNameEn: 'Spare parts',
      moduleName: 'spare_part',
      tenantScoped: 1,
    })
  ).data
  const zip = await call('POST', `/api/blade-develop/code/gen-code?ids=${code}&system=saber`)
  assert(Buffer.isBuffer(zip) && zip.subarray(0, 2).toString() === 'PK', 'gen-code answered no zip')
  writeFileSync(zipPath, zip)
  console.log(`ok - generated ${zip.length} bytes of zip through the hub`)
} else if (mode === 'crud') {
  const admin = client(await tokenOf('000000', 'admin', 'admin'))
  const API = '/api/blade-business/spare-part'
  // The generated menu and its buttons are seeded and granted to the administrators.
  const routes = (await admin('GET', '/api/blade-system/menu/routes')).data
  const flat = JSON.stringify(routes)
  assert(
    flat.includes('/business/sparePart'),
    `menu routes lack /business/sparePart: ${flat.slice(0, 600)}`,
  )
  const openapi = await (await fetch(`${base}/api/openapi.json`)).json()
  assert(openapi.paths[`${API}/submit`], 'the generated routes are not in /api/openapi.json')

  // Checks in the caller's language, with the generated labels.
  const missing = await admin('POST', `${API}/submit`, { partNo: 'P-1', quantity: 1 }, 400)
  assert(missing.msg === '请输入备件名称', `missing name: ${missing.msg}`)
  const range = await admin(
    'POST',
    `${API}/submit`,
    { partName: '逆变器风扇', partNo: 'P-1', quantity: 100001 },
    400,
  )
  assert(range.msg === '库存数量必须在0到100000之间', `out of range: ${range.msg}`)

  const id = (
    await admin('POST', `${API}/submit`, {
      partName: '逆变器风扇',
      partNo: 'FAN-220',
      quantity: 12,
      unitPrice: 86.5,
      installDate: '2026-11-01',
      remark: '华为 SUN2000 备件',
    })
  ).data
  const page = (await admin('GET', `${API}/list?current=1&size=10&partName=风扇`)).data
  assert(page.total === 1 && page.records[0].partNo === 'FAN-220', `list: ${JSON.stringify(page)}`)
  const detail = (await admin('GET', `${API}/detail?id=${id}`)).data
  assert(
    detail.quantity === 12 && detail.unitPrice === 86.5 && detail.installDate === '2026-11-01',
    `detail: ${JSON.stringify(detail)}`,
  )
  await admin('POST', `${API}/submit`, { id, quantity: 11 })
  assert((await admin('GET', `${API}/detail?id=${id}`)).data.quantity === 11, 'edit not saved')

  // Another tenant, with the page granted, sees none of these rows and cannot reach them.
  const tenantRow = (
    await admin('POST', '/api/blade-system/tenant/submit', {
      tenantName: '另一家运维公司',
      linkman: 'Li',
    })
  ).data
  const tenant = (await admin('GET', `/api/blade-system/tenant/detail?id=${tenantRow}`)).data
    .tenantId
  const other = client(await tokenOf(tenant, 'admin', '123456'))
  const theirs = (await other('GET', `${API}/list?current=1&size=10`)).data
  assert(theirs.total === 0, `another tenant listed ${JSON.stringify(theirs)}`)
  await other('GET', `${API}/detail?id=${id}`, undefined, 404)
  await other('POST', `${API}/remove?ids=${id}`, undefined, 404)
  await other('POST', `${API}/submit`, { id, quantity: 0 }, 404)
  assert(
    (await admin('GET', `${API}/detail?id=${id}`)).data.quantity === 11,
    'another tenant changed it',
  )

  await admin('POST', `${API}/remove?ids=${id}`)
  const after = (await admin('GET', `${API}/list?current=1&size=10`)).data
  assert(after.total === 0, `after remove: ${JSON.stringify(after)}`)
  console.log('ok - the generated CRUD lists, saves, checks, scopes by tenant and removes')
} else {
  fail(`usage: drive.mjs generate|crud <baseUrl> [zip]`)
}
