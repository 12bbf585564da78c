/**
 * /system/tenantPackage: tenant packages (add, edit, delete; no view; menuId a
 * multi-select tree sent comma-joined; both fields required).
 */
import { menuTree } from '../../../api/system/menuAdmin'
import { tenantPackageApi, type TenantPackage } from '../../../api/system/tenant'
import type { CrudConfig } from '../../../components/crud/types'

export const tenantPackageConfig: CrudConfig<TenantPackage> = {
  menuCode: 'tenantPackage',
  api: tenantPackageApi,
  without: ['view'],
  fields: [
    { name: 'id', label: 'tenantPackage.packageName', hideInTable: true, hideInForm: true },
    {
      name: 'packageName',
      label: 'tenantPackage.packageName',
      required: 'tenantPackage.packageNameRequired',
      search: true,
    },
    {
      name: 'menuId',
      label: 'tenantPackage.menuId',
      type: 'treeSelect',
      multiple: true,
      checkable: true,
      required: 'tenantPackage.menuIdRequired',
      loadTree: menuTree,
      hideInTable: true,
    },
    { name: 'remark', label: 'tenantPackage.remark', type: 'textarea' },
  ],
}
