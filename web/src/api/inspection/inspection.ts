/**
 * The inspection calls (`cloud/src/inspection/`, contract "Inspection"): items, plans, tasks and
 * records, their exports (xlsx blobs, like the report exports), the photo upload, and opening a
 * repair order from an abnormal result. Every call goes through the one request client; deletes
 * answer the server's own message (删除成功), a refusal (删除失败, an item still used) is toasted
 * by the request client.
 */
import { download, type Download } from '../station/excel'
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'
import type {
  DictOption,
  FillBody,
  InspectItem,
  InspectItemBody,
  InspectPlan,
  InspectPlanBody,
  InspectRecord,
  MaintenanceUser,
  Upload,
} from './types'
import { itemFromWire, planFromWire, recordFromWire, taskFromWire } from './wire'

type WireRow = Record<string, unknown>

const joinIds = (ids: readonly string[]) => ids.map(encodeURIComponent).join(',')

/** `DELETE {base}/{ids}` → the server's message. */
async function remove(base: string, ids: readonly string[]): Promise<string> {
  const res = await request.delete<Envelope<unknown>>(`${base}/${joinIds(ids)}`)
  return res.data.msg
}

async function getPage<T>(
  path: string,
  query: PageQuery,
  row: (raw: WireRow) => T,
): Promise<Page<T>> {
  const res = await request.get<Envelope<Page<WireRow> | null>>(path, { params: query })
  return pageFrom(res.data.data, query, row)
}

async function getOne<T>(path: string, row: (raw: WireRow) => T): Promise<T> {
  const res = await request.get<Envelope<WireRow>>(path)
  return row(res.data.data)
}

const dictOptions = (rows: DictOption[] | null | undefined): DictOption[] =>
  (rows ?? []).map((r) => ({ dictKey: String(r.dictKey), dictValue: r.dictValue }))

// ---- Items ----

export const itemPage = (query: PageQuery) => getPage('/inspectItem/page', query, itemFromWire)

export async function itemList(): Promise<InspectItem[]> {
  const res = await request.get<Envelope<WireRow[] | null>>('/inspectItem/list')
  return (res.data.data ?? []).map(itemFromWire)
}

export const itemDetail = (id: string) =>
  getOne(`/inspectItem/${encodeURIComponent(id)}`, itemFromWire)

/** Adds (no id) or changes an item; silent: the dialog shows the server's refusal itself. */
export async function saveItem(body: InspectItemBody): Promise<InspectItem> {
  const res = body.id
    ? await request.put<Envelope<WireRow>>('/inspectItem', body, { silent: true })
    : await request.post<Envelope<WireRow>>('/inspectItem', body, { silent: true })
  return itemFromWire(res.data.data ?? {})
}

export const removeItems = (ids: readonly string[]) => remove('/inspectItem', ids)

// ---- Plans ----

export const planPage = (query: PageQuery) => getPage('/inspectPlan/page', query, planFromWire)

export const planDetail = (id: string) =>
  getOne(`/inspectPlan/${encodeURIComponent(id)}`, planFromWire)

export async function savePlan(body: InspectPlanBody): Promise<InspectPlan> {
  const res = body.id
    ? await request.put<Envelope<WireRow>>('/inspectPlan', body, { silent: true })
    : await request.post<Envelope<WireRow>>('/inspectPlan', body, { silent: true })
  return planFromWire(res.data.data ?? {})
}

export const removePlans = (ids: readonly string[]) => remove('/inspectPlan', ids)

/** Copies a plan: the new plan (named "… (副本)", disabled). */
export async function copyPlan(id: string): Promise<InspectPlan> {
  const res = await request.get<Envelope<WireRow>>('/inspectPlan/copy', { params: { id } })
  return planFromWire(res.data.data ?? {})
}

export async function cyclePeriodList(): Promise<DictOption[]> {
  const res = await request.get<Envelope<DictOption[] | null>>('/inspectPlan/cyclePeriodList')
  return dictOptions(res.data.data)
}

export async function alarmDayList(): Promise<DictOption[]> {
  const res = await request.get<Envelope<DictOption[] | null>>('/inspectPlan/alarmDayList')
  return dictOptions(res.data.data)
}

/** Maintenance staff who may work on all of the given stations. */
export async function maintenanceList(stationIds: readonly string[]): Promise<MaintenanceUser[]> {
  const res = await request.get<Envelope<WireRow[] | null>>('/inspectPlan/maintenanceList', {
    params: stationIds.length > 0 ? { stationIds: stationIds.join(',') } : {},
  })
  return (res.data.data ?? []).map((u) => ({
    id: String(u.id as string),
    realName: typeof u.realName === 'string' ? u.realName : '',
    account: typeof u.account === 'string' ? u.account : '',
    phone: typeof u.phone === 'string' ? u.phone : null,
  }))
}

/** Creates an item from inside the plan form and answers it (to be picked at once). */
export async function saveItemAndReturn(body: InspectItemBody): Promise<InspectItem> {
  const res = await request.post<Envelope<WireRow>>('/inspectPlan/saveItemAndReturn', body, {
    silent: true,
  })
  return itemFromWire(res.data.data ?? {})
}

export const exportPlans = (filters: PageQuery): Promise<Download> =>
  download('/inspectPlan/export-data', 'inspection-plans.xlsx', filters)

// ---- Tasks ----

export const taskPage = (query: PageQuery) => getPage('/inspectTask/page', query, taskFromWire)

export const taskDetail = (id: string) =>
  getOne(`/inspectTask/${encodeURIComponent(id)}`, taskFromWire)

export const removeTasks = (ids: readonly string[]) => remove('/inspectTask', ids)

export const exportTasks = (filters: PageQuery): Promise<Download> =>
  download('/inspectTask/export-data', 'inspection-tasks.xlsx', filters)

// ---- Records ----

export const recordPage = (query: PageQuery) =>
  getPage('/inspectRecord/page', query, recordFromWire)

export const recordDetail = (id: string) =>
  getOne(`/inspectRecord/${encodeURIComponent(id)}`, recordFromWire)

/** Fills a task; silent: the form shows the server's refusal (already filled, a note missing). */
export async function fillTask(body: FillBody): Promise<InspectRecord> {
  const res = await request.post<Envelope<WireRow>>('/inspectRecord', body, { silent: true })
  return recordFromWire(res.data.data ?? {})
}

export const removeRecords = (ids: readonly string[]) => remove('/inspectRecord', ids)

export const exportRecords = (filters: PageQuery): Promise<Download> =>
  download('/inspectRecord/export-data', 'inspection-records.xlsx', filters)

// ---- Photos and repair orders ----

/** Uploads one photo (JPEG, PNG or WebP, checked by content on the server); silent: shown by the form. */
export async function uploadPhoto(file: Blob, name = 'photo'): Promise<Upload> {
  const form = new FormData()
  form.append('file', file, file instanceof File ? file.name : name)
  const res = await request.post<Envelope<Upload>>('/blade-resource/oss/endpoint/put-image', form, {
    upload: true,
    silent: true,
  })
  return res.data.data
}

/**
 * Opens a repair order from abnormal result `index` of a record; answers the order's id. The
 * record and index are what the contract asks; the station, a title ("item: check") and the
 * note as description go along, so the order reads like the record even where the hub does not
 * derive them from the record.
 */
export async function repairFromResult(record: InspectRecord, index: number): Promise<string> {
  const result = record.results?.[index]
  const title = result ? `${result.itemTitle}：${result.check}` : record.planName
  const description = (result?.note ?? '').trim() || title
  const res = await request.post<Envelope<WireRow | string | number>>('/repair', {
    inspectRecordId: record.id,
    inspectResultIndex: index,
    stationId: record.stationId,
    title: title.slice(0, 200),
    description: description.slice(0, 2000),
  })
  const data = res.data.data
  return typeof data === 'object' && data !== null ? String(data.id) : String(data)
}
