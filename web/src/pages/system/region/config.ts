/** /system/region: provinces → cities → districts, loaded level by level (contract "Regions"). */
import { regionApi, regionChildren, rootRegion, type Region } from '../../../api/system/region'
import type { CrudConfig } from '../../../components/crud/types'

export const regionConfig: CrudConfig<Region> = {
  menuCode: 'region',
  api: regionApi,
  tree: { loadChildren: (row) => regionChildren(row.code) },
  fields: [
    { name: 'code', label: 'region.code', required: 'region.codeRequired', lockedIn: ['edit'] },
    { name: 'name', label: 'region.name', required: 'region.nameRequired' },
    // Set by where the region is added (top level or a row's "add child"), never typed.
    { name: 'parentCode', label: 'region.parentCode', lockedIn: ['add', 'edit'] },
    {
      name: 'level',
      label: 'region.level',
      type: 'select',
      required: 'region.levelRequired',
      lockedIn: ['add', 'edit'],
      options: [
        { value: 1, label: 'region.province' },
        { value: 2, label: 'region.city' },
        { value: 3, label: 'region.district' },
      ],
    },
    { name: 'sort', label: 'region.sort', type: 'number' },
  ],
  addDefaults: { parentCode: rootRegion, level: 1, sort: 1 },
  rowActions: [
    {
      key: 'add-child',
      label: 'crud.addChild',
      permission: 'region_add',
      // Districts are the last level.
      visible: (row) => Number(row.level) < 3,
      run: (row, ctx) => ctx.openAdd({ parentCode: row.code, level: Number(row.level) + 1 }),
    },
  ],
}
