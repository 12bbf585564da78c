/** Posts (spec §3 "Other admin entities": post; §7 /api/blade-system/post family). */
import { crudApi } from '../../../api/crud'
import type { CrudConfig } from '../../../components/crud/types'

export interface Post {
  id?: string
  category: number
  postCode: string
  postName: string
  sort: number
  remark?: string
}

export const postConfig: CrudConfig<Post> = {
  menuCode: 'post',
  api: crudApi<Post>('/blade-system/post'),
  fields: [
    { name: 'id', label: 'post.postName', hideInTable: true, hideInForm: true },
    {
      name: 'category',
      label: 'post.category',
      type: 'select',
      required: 'post.categoryRequired',
      options: [
        { value: 1, label: 'post.senior' },
        { value: 2, label: 'post.middle' },
        { value: 3, label: 'post.junior' },
        { value: 4, label: 'post.other' },
      ],
    },
    {
      name: 'postCode',
      label: 'post.postCode',
      required: 'post.postCodeRequired',
      max: 12,
      search: true,
    },
    {
      name: 'postName',
      label: 'post.postName',
      required: 'post.postNameRequired',
      max: 64,
      search: true,
    },
    { name: 'sort', label: 'post.sort', type: 'number', required: 'post.sortRequired' },
    { name: 'remark', label: 'post.remark', type: 'textarea' },
  ],
}
