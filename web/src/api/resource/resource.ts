/**
 * Resources: object storage configurations (`/api/blade-resource/oss`), attachments
 * (`/api/blade-resource/attach`), SMS configurations (`/api/blade-resource/sms`), and the
 * signed-out password reset by an SMS code (`send-validate`, `phone/update-password`).
 */
import { entityApi } from '../crud'
import request from '../request'
import { download, saveDownload } from '../station/excel'
import type { Envelope } from '../types'

export interface OssConfig {
  id?: string
  /** 1 local disk, 2 S3-compatible. */
  category: number
  ossCode: string
  endpoint?: string
  bucketName?: string
  region?: string
  accessKey?: string
  /** Write-only: never answered; blank on edit keeps the stored one. */
  secretKey?: string
  /** 1 path-style, 0 virtual-hosted. */
  pathStyle?: number
  remark?: string
  /** 2 enabled. */
  status?: number
}

export interface Attachment {
  id?: string
  link: string
  name: string
  originalName: string
  extension: string
  attachSize: number
  ossId?: string | null
  ossCode?: string
  createTime?: string
}

export interface SmsConfig {
  id?: string
  /** 1 Aliyun, 2 Tencent Cloud, 3 generic HTTP. */
  category: number
  smsCode: string
  templateId?: string
  accessKey?: string
  secretKey?: string
  regionId?: string
  signName?: string
  appId?: string
  endpoint?: string
  remark?: string
  status?: number
}

/** A blank secret on edit means "keep the stored one": never send it blank. */
function withoutBlankSecret<T extends { secretKey?: string }>(row: T): T {
  if (row.secretKey === undefined || row.secretKey === null || `${row.secretKey}`.trim() === '') {
    const copy = { ...row }
    delete copy.secretKey
    return copy
  }
  return row
}

export const ossApi = entityApi<OssConfig>({
  style: 'blade',
  base: '/blade-resource/oss',
  toWire: withoutBlankSecret,
})
export const attachApi = entityApi<Attachment>({ style: 'blade', base: '/blade-resource/attach' })
export const smsApi = entityApi<SmsConfig>({
  style: 'blade',
  base: '/blade-resource/sms',
  toWire: withoutBlankSecret,
})

export async function enableOss(id: string): Promise<void> {
  await request.post<Envelope<boolean>>('/blade-resource/oss/enable', null, { params: { id } })
}

export async function enableSms(id: string): Promise<void> {
  await request.post<Envelope<boolean>>('/blade-resource/sms/enable', null, { params: { id } })
}

export async function downloadAttachment(row: Attachment): Promise<void> {
  saveDownload(
    await download('/blade-resource/attach/download', row.originalName || 'file', {
      id: row.id ?? '',
    }),
  )
}

const form = (pairs: Record<string, string>) => new URLSearchParams(pairs).toString()
const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded' }

/** Asks for a code by SMS; answers the id to send back with it. */
export async function sendValidate(tenantId: string, phone: string): Promise<string> {
  const res = await request.post<Envelope<{ id: string }>>(
    '/blade-resource/sms/endpoint/send-validate',
    form({ tenantId, phone }),
    { headers: formHeaders },
  )
  return res.data.data.id
}

/** Sets a new password (MD5 hex, as every password travels) with the code from the SMS. */
export async function resetByPhone(p: {
  tenantId: string
  phone: string
  id: string
  value: string
  newPassword: string
}): Promise<void> {
  await request.post<Envelope<boolean>>(
    '/blade-user/phone/update-password',
    form({ ...p, newPassword1: p.newPassword }),
    { headers: formHeaders },
  )
}
