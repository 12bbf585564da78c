/** Posts (spec §7 /api/blade-system/post family). */
import { crudApi } from '../crud'

export interface Post {
  id?: string
  category: number
  postCode: string
  postName: string
  sort: number
  remark?: string
}

export const postApi = crudApi<Post>('/blade-system/post')

/** Every post (the contract has no select call: the list's largest page). */
export async function postOptions(): Promise<Post[]> {
  return (await postApi.list({ current: 1, size: 200 })).records
}
