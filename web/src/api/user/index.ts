/** The signed-in user's own data (the personal information page: info and password tabs). */
import { md5 } from '../../utils/md5'
import request from '../request'
import type { Envelope } from '../types'

export interface UserDetail {
  id: string
  tenantId: string
  account: string
  name: string
  realName: string
  avatar: string
  email: string
  phone: string
  deptName: string
  roleName: string
  postName: string
}

export async function getUserInfo(): Promise<UserDetail> {
  const res = await request.get<Envelope<UserDetail>>('/blade-user/info')
  return res.data.data
}

export interface UserInfoForm {
  avatar: string
  realName: string
  name: string
  phone: string
  email: string
}

export async function updateInfo(form: UserInfoForm): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-user/update-info', form)
}

/** Each password is sent as the MD5 of what was typed. */
export async function updatePassword(
  oldPassword: string,
  newPassword: string,
  newPassword1: string,
): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-user/update-password', null, {
    params: {
      oldPassword: md5(oldPassword),
      newPassword: md5(newPassword),
      newPassword1: md5(newPassword1),
    },
  })
}

export interface UploadedFile {
  link: string
  domain: string
  name: string
  originalName: string
  attachId: string
}

export async function putFile(file: Blob, filename?: string): Promise<UploadedFile> {
  const body = new FormData()
  body.append('file', file, filename)
  const res = await request.post<Envelope<UploadedFile>>(
    '/blade-resource/oss/endpoint/put-file',
    body,
    { upload: true },
  )
  return res.data.data
}

export interface DeptOption {
  id: string
  deptName: string
}
export interface RoleOption {
  id: string
  roleName: string
}

export async function getDeptSelect(userId: string): Promise<DeptOption[]> {
  const res = await request.get<Envelope<DeptOption[]>>('/blade-system/dept/select', {
    params: { userId },
  })
  return res.data.data
}

export async function getRoleSelect(userId: string): Promise<RoleOption[]> {
  const res = await request.get<Envelope<RoleOption[]>>('/blade-system/role/select', {
    params: { userId },
  })
  return res.data.data
}
