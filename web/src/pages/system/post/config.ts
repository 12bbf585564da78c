/** Posts (the `/api/blade-system/post` list/detail/submit/remove family). */
import { postApi, type Post } from '../../../api/system/post'
import type { CrudConfig } from '../../../components/crud/types'

export type { Post } from '../../../api/system/post'

export const postConfig: CrudConfig<Post> = {
  menuCode: 'post',
  api: postApi,
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
