/** /system/topmenu: top menus (contract "Top menus"; tenant-scoped). */
import { topMenuApi, type TopMenuRow } from '../../../api/system/topmenu'
import type { CrudConfig } from '../../../components/crud/types'

export function topMenuConfig(
  openSetting: (ids: string[], reload: () => void) => void,
): CrudConfig<TopMenuRow> {
  return {
    menuCode: 'topmenu',
    api: topMenuApi,
    fields: [
      { name: 'id', label: 'topmenu.name', hideInTable: true, hideInForm: true },
      { name: 'code', label: 'topmenu.code', required: 'topmenu.codeRequired', search: true },
      { name: 'name', label: 'topmenu.name', required: 'topmenu.nameRequired', search: true },
      { name: 'source', label: 'topmenu.source' },
      { name: 'path', label: 'topmenu.path' },
      { name: 'sort', label: 'topmenu.sort', type: 'number', required: 'topmenu.sortRequired' },
    ],
    addDefaults: { sort: 1 },
    toolbar: [
      {
        key: 'setting',
        label: 'topmenu.setting',
        permission: 'topmenu_setting',
        needsSelection: true,
        run: (ctx) => openSetting(ctx.selectedIds, ctx.reload),
      },
    ],
  }
}
