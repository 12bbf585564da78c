/** The caller's menus and button permissions (menus limited by role and tenant package; buttons as a code tree). */
import type { ServerButton, ServerMenu } from '../../router/menu'
import request from '../request'
import type { Envelope } from '../types'

export async function getRoutes(topMenuId?: string): Promise<ServerMenu[]> {
  const res = await request.get<Envelope<ServerMenu[] | null>>('/blade-system/menu/routes', {
    params: topMenuId ? { topMenuId } : undefined,
  })
  return res.data.data ?? []
}

export async function getButtons(): Promise<ServerButton[]> {
  const res = await request.get<Envelope<ServerButton[] | null>>('/blade-system/menu/buttons')
  return res.data.data ?? []
}

export interface TopMenu {
  id: string
  code: string
  name: string
  source?: string
  sort?: number
}

export async function getTopMenu(): Promise<TopMenu[]> {
  const res = await request.get<Envelope<TopMenu[] | null>>('/blade-system/menu/top-menu')
  return res.data.data ?? []
}
