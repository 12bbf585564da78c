/** /system/user: users (contract "Users"). */
import { userApi, type User } from '../../../api/user/admin'
import type { CrudConfig } from '../../../components/crud/types'
import { userToolbar } from './actions'
import { userFields } from './fields'

export function userConfig(
  openRoles: (users: User[], reload: () => void) => void,
): CrudConfig<User> {
  return {
    menuCode: 'user',
    api: userApi,
    fields: userFields,
    toolbar: userToolbar('user', openRoles),
  }
}
