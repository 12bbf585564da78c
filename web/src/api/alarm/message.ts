/**
 * The caller's messages (contract "Alarms": `GET /message/list`, `POST /message/read`): one per
 * alarm the user is told about; `isRead` 0/1 (or a boolean).
 */
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

export interface Message {
  id: string
  alarmId?: string | null
  type: number
  title: string
  content: string
  isRead: boolean
  /** `yyyy-MM-dd HH:mm:ss` */
  createTime: string
}

interface WireMessage extends Omit<Message, 'isRead' | 'id' | 'alarmId'> {
  id: string | number
  alarmId?: string | number | null
  isRead: number | boolean | string
}

/** `isRead` as the server may send it (0/1, "0"/"1", a boolean) → boolean. */
export const readFlag = (value: number | boolean | string | null | undefined): boolean =>
  value === true || value === 1 || value === '1' || value === 'true'

export async function messageList(query: PageQuery): Promise<Page<Message>> {
  const res = await request.get<Envelope<Page<WireMessage> | null>>('/message/list', {
    params: query,
  })
  return pageFrom(res.data.data, query, (m) => ({
    ...m,
    id: String(m.id),
    alarmId: m.alarmId == null || m.alarmId === '' ? null : String(m.alarmId),
    type: Number(m.type),
    isRead: readFlag(m.isRead),
  }))
}

/** Marks the given messages read; no ids marks all of the caller's messages read. */
export async function markRead(ids: readonly string[] = []): Promise<void> {
  await request.post<Envelope<unknown>>('/message/read', { ids })
}
