/** /authority/role: roles, as a tree (contract "Roles"). */
import { roleApi, roleTree, type Role } from '../../../api/system/role'
import type { CrudConfig } from '../../../components/crud/types'

export function roleConfig(
  openGrant: (roleIds: string[], reload: () => void) => void,
): CrudConfig<Role> {
  return {
    menuCode: 'role',
    api: roleApi,
    tree: {},
    fields: [
      { name: 'id', label: 'role.roleName', hideInTable: true, hideInForm: true },
      { name: 'roleName', label: 'role.roleName', required: 'role.roleNameRequired', search: true },
      {
        name: 'roleAlias',
        label: 'role.roleAlias',
        required: 'role.roleAliasRequired',
        search: true,
      },
      {
        name: 'parentId',
        label: 'role.parentId',
        type: 'treeSelect',
        loadTree: () => roleTree(),
        hideInTable: true,
      },
      { name: 'sort', label: 'role.sort', type: 'number', required: 'role.sortRequired' },
    ],
    addDefaults: { sort: 1 },
    // No parent picked: a root role.
    beforeSubmit: (body) => ({ ...body, parentId: body.parentId ?? '0' }),
    toolbar: [
      {
        key: 'grant',
        label: 'role.grant',
        permission: 'role_grant',
        needsSelection: true,
        run: (ctx) => openGrant(ctx.selectedIds, ctx.reload),
      },
    ],
    rowActions: [
      {
        key: 'add-child',
        label: 'crud.addChild',
        permission: 'role_add',
        run: (row, ctx) => ctx.openAdd({ parentId: row.id }),
      },
    ],
  }
}
