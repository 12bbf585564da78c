/** /system/dept: departments, as a tree (contract "Departments"). */
import { deptApi, deptTree, type Dept } from '../../../api/system/dept'
import type { CrudConfig } from '../../../components/crud/types'

export const deptConfig: CrudConfig<Dept> = {
  menuCode: 'dept',
  api: deptApi,
  tree: {},
  fields: [
    { name: 'id', label: 'dept.deptName', hideInTable: true, hideInForm: true },
    { name: 'deptName', label: 'dept.deptName', required: 'dept.deptNameRequired', search: true },
    { name: 'fullName', label: 'dept.fullName', required: 'dept.fullNameRequired', search: true },
    {
      name: 'parentId',
      label: 'dept.parentId',
      type: 'treeSelect',
      loadTree: () => deptTree(),
      hideInTable: true,
    },
    {
      name: 'deptCategory',
      label: 'dept.deptCategory',
      type: 'select',
      dict: 'org_category',
      numeric: true,
      required: 'dept.deptCategoryRequired',
    },
    { name: 'sort', label: 'dept.sort', type: 'number', required: 'dept.sortRequired' },
    { name: 'remark', label: 'dept.remark', type: 'textarea', hideInTable: true },
  ],
  addDefaults: { sort: 1 },
  beforeSubmit: (body) => ({ ...body, parentId: body.parentId ?? '0' }),
  rowActions: [
    {
      key: 'add-child',
      label: 'crud.addChild',
      permission: 'dept_add',
      run: (row, ctx) => ctx.openAdd({ parentId: row.id }),
    },
  ],
}
