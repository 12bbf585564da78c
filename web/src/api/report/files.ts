/**
 * Report files (`/api/blade-report/report/rest/...`, `cloud/src/report/file_api.rs`): each
 * station's monthly report (generation, PR, bill) stored as an .xlsx, listed, downloaded,
 * produced on demand and removed.
 */
import { download, saveDownload, type Download } from '../station/excel'
import request from '../request'
import type { Envelope, Page } from '../types'

const BASE = '/blade-report/report/rest'

export interface ReportFile {
  id: string
  name: string
  stationId: string
  stationName: string
  /** `monthly`. */
  kind: string
  /** `yyyy-MM`. */
  period: string
  /** Bytes. */
  fileSize: number
  /** Absent when the monthly job produced it. */
  createUser?: string | null
  /** `yyyy-MM-dd HH:mm:ss`. */
  createTime: string
}

export interface ReportFileQuery {
  current: number
  size: number
  stationId?: string
  /** Part of the file name. */
  name?: string
  /** `yyyy-MM`. */
  period?: string
}

/** Drops empty filters, so the hub sees only what was chosen. */
const paramsOf = (q: ReportFileQuery): Record<string, string> => {
  const out: Record<string, string> = { current: String(q.current), size: String(q.size) }
  for (const k of ['stationId', 'name', 'period'] as const) {
    const v = q[k]?.trim()
    if (v) out[k] = v
  }
  return out
}

export async function listReportFiles(q: ReportFileQuery): Promise<Page<ReportFile>> {
  const res = await request.get<Envelope<Page<ReportFile>>>(`${BASE}/list`, {
    params: paramsOf(q),
  })
  return res.data.data
}

/** Produces (or replaces) the monthly report of `stationId` for `period` (`yyyy-MM`) now. */
export async function generateReportFile(stationId: string, period: string): Promise<ReportFile> {
  const res = await request.post<Envelope<ReportFile>>(`${BASE}/generate`, { stationId, period })
  return res.data.data
}

export async function removeReportFiles(ids: readonly string[]): Promise<boolean> {
  const res = await request.post<Envelope<boolean>>(`${BASE}/remove`, null, {
    params: { ids: ids.join(',') },
  })
  return res.data.data
}

/** The workbook of a file, with the name the hub gives it (else `fallback`). */
export const fetchReportFile = (id: string, fallback: string): Promise<Download> =>
  download(`${BASE}/download/${encodeURIComponent(id)}`, fallback)

export async function downloadReportFile(f: ReportFile): Promise<void> {
  saveDownload(await fetchReportFile(f.id, f.name.endsWith('.xlsx') ? f.name : `${f.name}.xlsx`))
}

/** `12 345` bytes → `12.1 KB`. */
export function sizeText(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
